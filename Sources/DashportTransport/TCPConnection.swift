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
/// Every piece of mutable state, the socket's lifetime included, sits behind one mutex: any thread
/// may write or close, only the reactor reads, and the descriptor is closed with the lock held, so
/// no call can reach a reused descriptor number. Events are delivered outside the lock, so a handler
/// may call back into the connection; `.closed` always goes through the loop's queue, after every
/// `.received` and never re-entrantly.
public final class TCPConnection: ByteStream {
    /// Default cap on bytes queued for a peer: 8 MiB (a few album covers' worth of AAP frames).
    public static let defaultOutboundBufferLimit = 8 * 1024 * 1024
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
    }

    init(fd: Int32, remote: ListenAddress?, phase: Phase, loop: EventLoop, outboundBufferLimit: Int, logger: Logger,
         onFinish: (@Sendable () -> Void)? = nil) {
        let peer = remote?.description ?? "unknown"
        self.fd = fd
        self.id = loop.makeID()
        self.remote = remote
        self.peerDescription = peer
        self.loop = loop
        self.outboundBufferLimit = outboundBufferLimit
        self.logger = logger.with("peer", peer)
        self.onFinish = onFinish
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
        loop.register(self, id: id, fd: fd,
                      events: EventLoop.input | EventLoop.output | EventLoop.hangUp | EventLoop.edgeTriggered)
    }

    /// Bytes queued for the peer and not yet handed to the kernel.
    public var outboundBufferedBytes: Int { state.withLock { $0.outbound.count } }

    public func start(_ handler: @escaping @Sendable (TransportEvent) -> Void) {
        enum Next { case ignore, deliverClosed(TransportError?), poll(UInt32) }
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
        let finished = state.withLock { state -> Finished? in
            guard case .open = state.phase else { return nil }  // closing or closed: dropped
            var unsent = bytes[...]
            if state.outbound.isEmpty {
                // Nothing queued ahead: try the socket directly, saving a trip through the loop.
                let result = bytes.withUnsafeBytes { sendSome(fd, $0) }
                switch result {
                case .ok(let sent): unsent = bytes[sent...]
                case .wouldBlock: break
                case .failed(let code): return closeLocked(&state, connectionError(code, during: "send"), how: .reset)
                }
                if unsent.isEmpty { return nil }
            }
            state.outbound.append(Array(unsent))
            if state.outbound.count > outboundBufferLimit {
                return closeLocked(&state, .outboundBufferFull(outboundBufferLimit), how: .reset)
            }
            // A queue left non-empty means send hit a full buffer: the next writable edge flushes it.
            return nil
        }
        finished?.notify()
    }

    public func close() {
        let finished = state.withLock { state -> Finished? in
            switch state.phase {
            case .connecting: return closeLocked(&state, nil, how: .reset)
            case .open:
                if state.outbound.isEmpty { return closeLocked(&state, nil, how: .graceful) }
                let timer = loop.scheduleTimer(after: TCPConnection.closeTimeout) { [self] in closeTimedOut() }
                state.phase = .closing(timer)
                return nil
            case .closing, .closed: return nil
            }
        }
        finished?.notify()
    }

    public func abort() {
        state.withLock { state -> Finished? in
            if case .closed = state.phase { return nil }
            return closeLocked(&state, nil, how: .reset)
        }?.notify()
    }

    private func closeTimedOut() {
        state.withLock { state -> Finished? in
            guard case .closing = state.phase else { return nil }
            let left = state.outbound.count
            return closeLocked(&state, .io("close: the peer did not take the last \(left) bytes within \(TCPConnection.closeTimeout)"), how: .reset)
        }?.notify()
    }
}
