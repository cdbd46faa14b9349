import CDashportLinux
import DashportLog
import Glibc
import Synchronization

// The reactor side of a connection: readiness events, reading, flushing, and closing the socket.

extension TCPConnection: Selectable {
    func handleEvents(_ events: UInt32, scratch: UnsafeMutableRawBufferPointer) -> Bool {
        enum Step {
            case nothing
            case connected(ConnectWaiter?)
            case finished(Finished)
            case read(Handler)
        }
        let step = state.withLock { state -> Step in
            switch state.phase {
            case .closed:
                return .nothing
            case .connecting(let waiter):
                guard events & (EventLoop.output | EventLoop.hangUp) != 0 else {
                    state.deferredEvents |= events
                    return .nothing
                }
                let code = pendingSocketError(fd)
                guard code == 0 else {
                    let reason = remote.map { TransportError.connect($0, errnoText(code)) } ?? .io("connect: \(errnoText(code))")
                    return .finished(closeLocked(&state, reason, how: .plain))
                }
                state.phase = .open
                state.deferredEvents |= events
                return .connected(waiter)
            case .open, .closing:
                if events & EventLoop.hangUp != 0 { state.hangUpSeen = true }
                if events & EventLoop.output != 0 {
                    state.flushScheduled = false
                    if let finished = flushLocked(&state) { return .finished(finished) }
                }
                guard events & (EventLoop.input | EventLoop.hangUp) != 0 else { return .nothing }
                if state.readPaused { return .nothing }  // read on demand: resumeReading() polls again
                guard let handler = state.handler else {
                    state.deferredEvents |= events
                    return .nothing
                }
                return .read(handler)
            }
        }
        switch step {
        case .nothing: return false
        case .connected(let waiter):
            waiter?.resume(returning: .success(()))
            return false
        case .finished(let finished):
            finished.notify()
            return false
        case .read(let handler):
            return readAvailable(handler, scratch)
        }
    }

    /// Reads up to ``EventLoop/readsPerTurn`` chunks; true when the budget ran out before EAGAIN.
    ///
    /// A read shorter than the scratch buffer emptied the socket's receive queue, so it ends the
    /// turn without the `recv` that would only say EAGAIN (an audio ACK, 23 a second per car, is one
    /// short read): bytes that arrive later raise a new edge. Not once an event carried a hang-up
    /// (``State/hangUpSeen``): a FIN that came with the data raises no edge of its own, so reading
    /// then goes on to the end of stream.
    private func readAvailable(_ handler: Handler, _ scratch: UnsafeMutableRawBufferPointer) -> Bool {
        enum Outcome {
            case data([UInt8], last: Bool)
            case drained
            case finished(Finished)
        }
        for _ in 0..<EventLoop.readsPerTurn {
            let outcome = state.withLock { state -> Outcome in
                switch state.phase {
                case .open, .closing: break
                case .connecting, .closed: return .drained
                }
                if state.readPaused { return .drained }
                loop.auditSocketCall()
                let received: SystemCallResult
                if state.recordsArrival {
                    var arrival: Int64 = -1
                    received = systemCall({ cdashport_recv_arrival(fd, scratch.baseAddress, scratch.count, &arrival) })
                    if arrival >= 0 { state.lastArrival = arrival }
                } else {
                    received = systemCall({ Glibc.recv(fd, scratch.baseAddress, scratch.count, 0) })
                }
                switch received {
                case .ok(0): return .finished(closeLocked(&state, nil, how: .plain))
                case .ok(let count):
                    return .data(
                        Array(UnsafeRawBufferPointer(rebasing: scratch[..<count])), last: count < scratch.count && !state.hangUpSeen)
                case .wouldBlock: return .drained
                case .failed(let code):
                    return .finished(closeLocked(&state, connectionError(code, during: "recv"), how: .plain))
                }
            }
            switch outcome {
            case .data(let bytes, let last):
                handler(.received(bytes))
                if last { return false }
            case .drained: return false
            case .finished(let finished):
                finished.notify()
                return false
            }
        }
        return true
    }

    /// Hands queued bytes to the kernel (reactor thread only); wakes drain waiters the flush
    /// satisfied. Returns what to notify when the flush ended the connection (a graceful close
    /// finished, or `send` failed).
    func flushLocked(_ state: inout State) -> Finished? {
        guard !state.outbound.isEmpty else {
            if case .closing = state.phase { return closeLocked(&state, nil, how: .graceful) }
            return nil
        }
        loop.auditSocketCall()
        let before = state.outbound.count
        let result = state.outbound.flush(to: fd)
        budget?.subtract(before - state.outbound.count)
        if !state.drainWaiters.isEmpty {
            let left = state.outbound.count
            for waiter in state.drainWaiters where waiter.threshold >= left { loop.execute(waiter.callback) }
            state.drainWaiters.removeAll { $0.threshold >= left }
        }
        switch result {
        case .drained:
            if case .closing = state.phase { return closeLocked(&state, nil, how: .graceful) }
            return nil
        case .wouldBlock:
            return nil
        case .failed(let code):
            return closeLocked(&state, connectionError(code, during: "send"), how: .plain)
        }
    }

    /// How the socket is closed.
    enum CloseMode {
        /// FIN after every queued byte: shut down the sending side, discard unread input (so the
        /// kernel does not answer it with a reset), then close.
        case graceful
        /// Just close: the peer is gone or the socket failed.
        case plain
        /// Reset (SO_LINGER 0): the kernel drops what it still holds and sends RST.
        case reset
    }

    /// Closes the socket and moves to `.closed`; call with the lock held, then ``Finished/notify()``
    /// after releasing it.
    func closeLocked(_ state: inout State, _ reason: TransportError?, how mode: CloseMode) -> Finished {
        var waiter: ConnectWaiter?
        switch state.phase {
        case .closing(let timer): timer?.cancel()
        case .connecting(let pending): waiter = pending
        case .open, .closed: break
        }
        loop.auditSocketCall()
        loop.deregister(id: id, fd: fd)
        switch mode {
        case .graceful:
            _ = Glibc.shutdown(fd, Int32(SHUT_WR))
            discardInput()
        case .plain:
            break
        case .reset:
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        }
        Glibc.close(fd)
        state.phase = .closed(reason)
        budget?.subtract(state.outbound.count)
        state.outbound.removeAll()
        for waiter in state.drainWaiters { loop.execute(waiter.callback) }
        state.drainWaiters.removeAll()
        defer { state.handler = nil }
        return Finished(connection: self, handler: state.handler, reason: reason, waiter: waiter)
    }

    /// Reads and drops what the peer sent and nobody will read (at most 256 KiB).
    private func discardInput() {
        withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 16) { buffer in
            for _ in 0..<64 {
                guard case .ok(let count) = systemCall({ Glibc.recv(fd, buffer.baseAddress, buffer.count, 0) }),
                    count > 0
                else { return }
            }
        }
    }

    /// What to tell whom once a connection has closed; built under the lock, acted on outside it.
    struct Finished {
        let connection: TCPConnection
        let handler: Handler?
        let reason: TransportError?
        let waiter: ConnectWaiter?

        func notify() {
            let reason = self.reason
            switch reason {
            case nil: connection.logger.debug("closed")
            case .reset?: connection.logger.info("connection reset by peer")
            case .outboundBufferFull?, .outboundBudgetExhausted?: connection.logger.warning("\(reason.map(String.init(describing:)) ?? "")")
            case let other?: connection.logger.notice("closed: \(other)")
            }
            if let handler { connection.loop.execute { handler(.closed(reason)) } }
            waiter?.resume(returning: .failure(reason ?? .io("connect: closed before the connection was established")))
            connection.onFinish?()
        }
    }
}
