import CDashportLinux
import DashportLog
import Glibc
import Synchronization

/// One TCP connection to a peer, driven by an ``EventLoop``.
///
/// The loop keeps an open connection alive: its owner must `close` or `abort` it when done.
/// End of stream from the peer closes the connection at once (AAP has no half-close), dropping
/// anything still queued. ``abort()`` resets the connection (RST), so the kernel drops its copy too.
///
/// Only the reactor thread makes socket calls (recv, send, shutdown, close): any thread may
/// ``write(_:)``, which queues the bytes and asks the reactor to flush them (one eventfd wake per
/// batch), and ``close()``/``abort()``, which hand the close to the reactor. Every piece of mutable
/// state sits behind one mutex, and the descriptor is closed with the lock held, so no call can
/// reach a reused descriptor number. Reading is on demand: ``pauseReading()`` stops the reactor
/// reading this socket until ``resumeReading()``, so a consumer bounds what it holds. Events are delivered outside the lock, so a handler
/// may call back into the connection; `.closed` always goes through the loop's queue, after every
/// `.received` and never re-entrantly.
public final class TCPConnection: ByteStream {
    /// Default cap on bytes queued for a peer: 8 MiB (a few album covers' worth of AAP frames).
    /// Default cap on bytes queued for a peer: 1.25 MiB, one largest AAP message (1 MiB of
    /// plaintext, about 1.03 MiB framed and encrypted) on top of the server's high-water mark
    /// (192 KiB), so a car that reads is never closed and one that does not costs at most this.
    public static let defaultOutboundBufferLimit = 1_280 * 1024
    /// How long ``close()`` waits for a peer to take the queued bytes before aborting.
    public static let closeTimeout: Duration = .seconds(10)

    public let peerDescription: String
    /// The peer's numeric host ("127.0.0.1", "::1"); nil for a non-IP peer.
    public var peerHost: String? { remote?.host }
    /// The cap on bytes queued for the peer; more closes the connection with `.outboundBufferFull`.
    public let outboundBufferLimit: Int

    let fd: Int32
    let id: UInt64
    let loop: EventLoop
    /// The peer's address; nil only if the kernel reported a non-IP peer.
    let remote: ListenAddress?
    let logger: Logger
    let onFinish: (@Sendable () -> Void)?
    /// The process-wide cap this connection's queued bytes count against, if any.
    let budget: OutboundBudget?
    let state: Mutex<State>

    typealias Handler = @Sendable (TransportEvent) -> Void
    typealias ConnectWaiter = CheckedContinuation<Result<Void, TransportError>, Never>

    enum Phase {
        /// A client socket whose non-blocking connect has not completed; the waiter is resumed then.
        case connecting(ConnectWaiter?)
        case open
        /// ``close()`` was called: flushing, then closing; the timer aborts a peer that stopped reading.
        case closing(TimerHandle?)
        /// The descriptor is closed, for this reason (nil = orderly).
        case closed(TransportError?)
    }

    struct State {
        var phase: Phase
        var handler: Handler?
        var started = false
        /// epoll events seen before ``start(_:)``; handled when it is called.
        var deferredEvents: UInt32 = 0
        var outbound = OutboundQueue()
        /// A flush was asked of the reactor and has not run yet.
        var flushScheduled = false
        /// The consumer asked to stop reading (``pauseReading()``).
        var readPaused = false
        /// An event reported a hang-up or an error: reads go on to EAGAIN or the end of stream
        /// (a short read no longer means the socket is drained).
        var hangUpSeen = false
        /// A close or abort is on its way to the reactor: further writes are dropped.
        var closeRequested = false
        /// One-shot callbacks for ``whenOutboundAtMost(_:_:)``.
        var drainWaiters: [(threshold: Int, callback: @Sendable () -> Void)] = []
        /// ``recordArrivalTimes()`` was asked: reads take the kernel's arrival time too.
        var recordsArrival = false
        /// The kernel's arrival time of the newest bytes read (CLOCK_REALTIME ns), if recorded.
        var lastArrival: Int64?
    }

    init(
        fd: Int32, remote: ListenAddress?, phase: Phase, loop: EventLoop, outboundBufferLimit: Int, logger: Logger,
        budget: OutboundBudget? = nil, onFinish: (@Sendable () -> Void)? = nil
    ) {
        let peer = remote?.description ?? "unknown"
        self.fd = fd
        self.id = loop.makeID()
        self.remote = remote
        self.peerDescription = peer
        self.loop = loop
        self.outboundBufferLimit = outboundBufferLimit
        self.logger = logger.with("peer", peer)
        self.onFinish = onFinish
        self.budget = budget
        self.state = Mutex(State(phase: phase))
    }

    deinit {
        // Registered connections are kept alive by their loop; one that never registered, or whose
        // registration failed, still owns its descriptor here.
        state.withLock { state in
            if case .closed = state.phase { return }
            Glibc.close(fd)
        }
    }

    /// Adds the socket to the loop, edge-triggered, for input and output. Returns errno on failure.
    func register() -> Int32? {
        loop.register(
            self, id: id, fd: fd,
            events: EventLoop.input | EventLoop.output | EventLoop.hangUp | EventLoop.edgeTriggered)
    }

    /// Bytes queued for the peer and not yet handed to the kernel.
    public var outboundBufferedBytes: Int { state.withLock { $0.outbound.count } }

    /// What the kernel may hold of this peer's bytes that nobody has read (`SO_RCVBUF` as the kernel
    /// reports it), read on the reactor thread; nil once closed or when it cannot be read.
    public func kernelReceiveBufferSize() async -> Int? {
        await withCheckedContinuation { done in
            loop.execute { [self] in
                let open = state.withLock { if case .open = $0.phase { true } else { false } }
                guard open else { return done.resume(returning: nil) }
                loop.auditSocketCall()
                var value: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                done.resume(returning: getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &value, &length) == 0 ? Int(value) : nil)
            }
        }
    }

    /// The reactor that owns this socket: the task serving the connection runs its jobs there.
    public var preferredExecutor: (any TaskExecutor)? { loop }

    /// The connection's state in one line, for a test that timed out waiting on it.
    public var debugState: String {
        state.withLock { state in
            "phase=\(state.phase) started=\(state.started) readPaused=\(state.readPaused) "
                + "flushScheduled=\(state.flushScheduled) queued=\(state.outbound.count) "
                + "closeRequested=\(state.closeRequested) deferred=\(state.deferredEvents) drainWaiters=\(state.drainWaiters.count)"
        }
    }

    public func start(_ handler: @escaping @Sendable (TransportEvent) -> Void) {
        enum Next {
            case ignore
            case deliverClosed(TransportError?)
            case poll(UInt32)
        }
        let next = state.withLock { state -> Next in
            guard !state.started else { return .ignore }
            state.started = true
            if case .closed(let reason) = state.phase { return .deliverClosed(reason) }
            state.handler = handler
            defer { state.deferredEvents = 0 }
            return .poll(state.deferredEvents | EventLoop.input)
        }
        switch next {
        case .ignore: logger.error("start called twice; the second handler is ignored")
        case .deliverClosed(let reason): loop.execute { handler(.closed(reason)) }
        case .poll(let events): loop.poll(id: id, events: events)
        }
    }

    public func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        let onLoop = loop.isCurrentThread
        enum Next {
            case nothing, flushSoon, closeOverCap
            case finished(Finished)
        }
        let next = state.withLock { state -> Next in
            guard case .open = state.phase, !state.closeRequested else { return .nothing }  // closing or closed: dropped
            state.outbound.append(bytes)
            budget?.add(bytes.count)
            if state.outbound.count > outboundBufferLimit {
                state.closeRequested = true
                if onLoop { return .finished(closeLocked(&state, .outboundBufferFull(outboundBufferLimit), how: .reset)) }
                return .closeOverCap
            }
            // A worker running on the loop (see `EventLoop+TaskExecutor.swift`) may write many
            // answers in one turn: they are flushed together once its jobs are done.
            if onLoop && !loop.runningJobs.load(ordering: .relaxed) { return flushLocked(&state).map(Next.finished) ?? .nothing }
            // Only the reactor touches the socket: ask it to flush, once per batch of writes.
            if state.flushScheduled { return .nothing }
            state.flushScheduled = true
            return .flushSoon
        }
        switch next {
        case .nothing: break
        case .flushSoon: loop.poll(id: id, events: EventLoop.output)
        case .closeOverCap: loop.execute { [self] in closeOnLoop(.outboundBufferFull(outboundBufferLimit), how: .reset) }
        case .finished(let finished): finished.notify()
        }
        if let budget, budget.isOver { loop.shedOutbound(budget) }
    }

    public func close() {
        guard loop.isCurrentThread else {
            // Later writes are dropped at once; the reactor flushes what is queued, then closes.
            let first = state.withLock { state -> Bool in
                defer { state.closeRequested = true }
                return !state.closeRequested
            }
            if first { loop.execute { [self] in close() } }
            return
        }
        let finished = state.withLock { state -> Finished? in
            switch state.phase {
            case .connecting: return closeLocked(&state, nil, how: .reset)
            case .open:
                if state.outbound.isEmpty { return closeLocked(&state, nil, how: .graceful) }
                let timer = loop.scheduleTimer(after: TCPConnection.closeTimeout) { [self] in closeTimedOut() }
                state.phase = .closing(timer)
                return flushLocked(&state)
            case .closing, .closed: return nil
            }
        }
        finished?.notify()
    }

    public func abort() {
        shed(nil)
    }

    /// Resets the connection for `reason`. Off its reactor, the queued bytes (and later writes) are
    /// dropped at once, so what they held of the budget is back before the reactor closes the socket.
    func shed(_ reason: TransportError?) {
        guard loop.isCurrentThread else {
            state.withLock { state in
                state.closeRequested = true
                budget?.subtract(state.outbound.count)
                state.outbound.removeAll()
            }
            loop.execute { [self] in closeOnLoop(reason, how: .reset) }
            return
        }
        closeOnLoop(reason, how: .reset)
    }

    /// Bytes the peer sent that the kernel holds and this connection has not read yet
    /// (`FIONREAD`; for a Unix stream socket, everything the peer wrote that is still in flight);
    /// 0 once the connection is closing. Asked under the state lock, while the descriptor is open.
    public var unreadBytes: Int {
        state.withLock { state in
            guard case .open = state.phase else { return 0 }
            var count: Int32 = 0
            return ioctl(fd, UInt(FIONREAD), &count) == 0 ? Int(max(count, 0)) : 0
        }
    }

    // MARK: Arrival times (a benchmark's seam)

    /// From now on each read also takes the kernel's arrival time of the bytes it read
    /// (SO_TIMESTAMPNS; `recvmsg` instead of `recv`). For a benchmark that times what a peer sent
    /// without its own reactor's queueing; the server never asks for it.
    package func recordArrivalTimes() {
        state.withLock { state in
            guard case .open = state.phase, cdashport_enable_receive_timestamps(fd) == 0 else { return }
            state.recordsArrival = true
        }
    }

    /// How long ago the kernel received the newest bytes handed to the handler, when
    /// ``recordArrivalTimes()`` is on and the kernel stamped them; read from the handler, it is
    /// how long those bytes waited in the socket and in this reactor's turn.
    package var ageOfLastArrival: Duration? {
        guard let arrival = state.withLock({ $0.lastArrival }) else { return nil }
        return .nanoseconds(max(0, Int64(cdashport_realtime_nanoseconds()) - arrival))
    }

    // MARK: Read-on-demand (back-pressure from the consumer)

    /// Stops reading the socket: the kernel's receive buffer fills and TCP's window stops the peer.
    /// Events already delivered stay delivered; call ``resumeReading()`` when caught up.
    public func pauseReading() {
        state.withLock { $0.readPaused = true }
    }

    /// Reads again (the reactor polls the socket at once, since an edge may have passed meanwhile).
    public func resumeReading() {
        let wasPaused = state.withLock { state -> Bool in
            defer { state.readPaused = false }
            return state.readPaused
        }
        if wasPaused { loop.poll(id: id, events: EventLoop.input) }
    }

    /// Calls `callback` once, on the reactor thread, when at most `threshold` bytes are queued for
    /// the peer (at once if that holds now), or when the connection closes.
    public func whenOutboundAtMost(_ threshold: Int, _ callback: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if case .closed = state.phase { return true }
            if state.outbound.count <= threshold { return true }
            state.drainWaiters.append((threshold, callback))
            return false
        }
        if now { loop.execute(callback) }
    }

    func closeOnLoop(_ reason: TransportError?, how mode: CloseMode) {
        state.withLock { state -> Finished? in
            if case .closed = state.phase { return nil }
            return closeLocked(&state, reason, how: mode)
        }?.notify()
    }

    private func closeTimedOut() {
        state.withLock { state -> Finished? in
            guard case .closing = state.phase else { return nil }
            let left = state.outbound.count
            return closeLocked(
                &state, .io("close: the peer did not take the last \(left) bytes within \(TCPConnection.closeTimeout)"), how: .reset)
        }?.notify()
    }
}
