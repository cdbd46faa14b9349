import CDashportLinux
public import DashportLog
import Glibc
import Synchronization

/// A listening TCP socket (IPv4 or IPv6) that hands each accepted peer over as a ``TCPConnection``.
///
/// The listening socket is watched by one reactor (`loop`); each accepted connection is owned by
/// one of ``connectionLoops`` (the one with the fewest of this listener's connections, see
/// `ReactorBalancer`), whose thread alone makes its socket calls from then on.
///
/// Accepted sockets are non-blocking, close-on-exec and TCP_NODELAY, with TCP keepalive
/// (``TCPKeepAlive/default`` unless told otherwise). Beyond `maxConnections` live
/// connections a new peer is accepted and closed at once, and logged, so a flood of connects
/// neither fills the backlog nor touches the cars already connected.
public final class TCPListener: Sendable {
    /// The address actually bound: the real port when port 0 was asked for.
    public let boundAddress: ListenAddress
    /// Live connections allowed at once.
    public let maxConnections: Int
    /// The outbound cap given to each accepted connection.
    public let outboundBufferLimit: Int
    /// Keepalive set on each accepted connection; nil leaves the system's (off).
    public let keepAlive: TCPKeepAlive?
    /// The process-wide cap all accepted connections' queued bytes count against.
    public let outboundBudget: OutboundBudget
    /// The kernel receive buffer every accepted socket inherits (`SO_RCVBUF` as the kernel reports
    /// it, which on Linux is twice what was asked), when one was asked for; nil leaves the
    /// kernel's autotuning (on loopback it grows to megabytes).
    public let receiveBufferSize: Int?

    /// The reactors accepted connections are spread over (the listener's own loop alone unless
    /// `bind` was given more).
    public var connectionLoops: [EventLoop] { balancer.loops }

    private let fd: Int32
    private let id: UInt64
    private let loop: EventLoop
    private let balancer: ReactorBalancer
    private let logger: Logger
    private let phase = Mutex(Phase.bound)
    private let liveConnections = Atomic<Int>(0)

    private enum Phase {
        case bound
        case listening(@Sendable (TCPConnection) -> Void)
        case shutDown
    }

    /// Accepts per readiness edge before the loop serves other sockets.
    private static let acceptsPerTurn = 64

    /// Binds and listens. `SO_REUSEADDR` is set so a restarted server can rebind at once; a port that
    /// another socket listens on still fails with ``TransportError/bind(_:_:)``.
    ///
    /// `receiveBufferSize` sets `SO_RCVBUF` on the listening socket before `listen`, so every
    /// accepted socket inherits it from its first segment (tcp(7)): it bounds what the kernel
    /// holds of a peer's bytes while the reactor does not read them (a paused car), and what it
    /// frees when such a peer is closed.
    ///
    /// `loop` watches the listening socket; `connectionLoops` (default: `loop` alone) are the
    /// reactors its connections are spread over.
    public static func bind(
        _ address: ListenAddress, backlog: Int32 = 512, maxConnections: Int = 1024,
        outboundBufferLimit: Int = TCPConnection.defaultOutboundBufferLimit,
        keepAlive: TCPKeepAlive? = .default,
        outboundBudget: OutboundBudget = OutboundBudget(),
        receiveBufferSize: Int? = nil,
        logger: Logger, loop: EventLoop = .shared, connectionLoops: [EventLoop] = []
    ) throws(TransportError) -> TCPListener {
        guard let socketAddress = SocketAddress(address) else { throw .bind(address, "not a numeric address") }
        let fd = socket(socketAddress.family, streamSocketType, 0)
        guard fd >= 0 else { throw .bind(address, "socket: \(errnoText(errno))") }
        func fail(_ call: String) -> TransportError {
            let text = errnoText(errno)
            Glibc.close(fd)
            return .bind(address, call.isEmpty ? text : "\(call): \(text)")
        }
        setSocketOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        var applied: Int?
        if let receiveBufferSize {
            guard setSocketOption(fd, SOL_SOCKET, SO_RCVBUF, Int32(clamping: receiveBufferSize)) == nil else { throw fail("SO_RCVBUF") }
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &value, &length) == 0 else { throw fail("SO_RCVBUF") }
            applied = Int(value)
        }
        guard socketAddress.withSockAddr({ Glibc.bind(fd, $0, $1) }) == 0 else { throw fail("") }
        guard listen(fd, backlog) == 0 else { throw fail("listen") }
        let (result, bound) = SocketAddress.filling { getsockname(fd, $0, $1) }
        guard result == 0, let bound else { throw fail("getsockname") }
        return TCPListener(
            fd: fd, bound: bound.listenAddress, maxConnections: maxConnections,
            outboundBufferLimit: outboundBufferLimit, keepAlive: keepAlive,
            outboundBudget: outboundBudget, receiveBufferSize: applied, logger: logger, loop: loop,
            connectionLoops: connectionLoops.isEmpty ? [loop] : connectionLoops)
    }

    private init(
        fd: Int32, bound: ListenAddress, maxConnections: Int, outboundBufferLimit: Int,
        keepAlive: TCPKeepAlive?, outboundBudget: OutboundBudget, receiveBufferSize: Int?, logger: Logger, loop: EventLoop,
        connectionLoops: [EventLoop]
    ) {
        self.receiveBufferSize = receiveBufferSize
        self.fd = fd
        self.id = loop.makeID()
        self.boundAddress = bound
        self.maxConnections = maxConnections
        self.outboundBufferLimit = outboundBufferLimit
        self.keepAlive = keepAlive
        self.outboundBudget = outboundBudget
        self.logger = logger.labelled("transport").with("listen", bound.description)
        self.loop = loop
        self.balancer = ReactorBalancer(loops: connectionLoops)
        outboundBudget.share(connectionLoops)
    }

    deinit {
        // A listener that was started is kept alive by its loop until shutdown(); one that never
        // started still owns its descriptor here.
        phase.withLock { phase in
            if case .bound = phase { Glibc.close(fd) }
        }
    }

    /// Live connections accepted by this listener and not yet closed.
    public var connectionCount: Int { liveConnections.load(ordering: .relaxed) }

    /// Live connections per reactor of ``connectionLoops``, in that order.
    public var connectionsPerReactor: [Int] { balancer.connections }

    /// Starts accepting. `onAccept` runs on the reactor thread for each new connection, which it must
    /// `start` (or close). Call once.
    public func start(onAccept: @escaping @Sendable (TCPConnection) -> Void) {
        let outcome = phase.withLock { phase -> Int32?? in
            guard case .bound = phase else { return .none }
            phase = .listening(onAccept)
            return .some(loop.register(self, id: id, fd: fd, events: EventLoop.input | EventLoop.edgeTriggered))
        }
        switch outcome {
        case .none: logger.error("start called on a listener that is already started or shut down; ignored")
        case .some(nil): logger.info("listening")
        case .some(let code?): logger.error("cannot watch the listening socket: \(errnoText(code))")
        }
    }

    /// Stops accepting and closes the listening socket. Connections already accepted stay open until
    /// their owners close them.
    public func shutdown() {
        phase.withLock { phase in
            switch phase {
            case .bound: break
            case .listening: loop.deregister(id: id, fd: fd)
            case .shutDown: return
            }
            Glibc.close(fd)
            phase = .shutDown
        }
        logger.info("stopped listening")
    }
}

extension TCPListener: Selectable {
    func handleEvents(_ events: UInt32, scratch: UnsafeMutableRawBufferPointer) -> Bool {
        for _ in 0..<TCPListener.acceptsPerTurn {
            enum Outcome {
                case accepted(Int32, SocketAddress?, @Sendable (TCPConnection) -> Void)
                case drained
            }
            let outcome = phase.withLock { phase -> Outcome in
                guard case .listening(let onAccept) = phase else { return .drained }
                var storage = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let result = withUnsafeMutablePointer(to: &storage) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                        systemCall {
                            Int(cdashport_accept4(fd, address, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)))
                        }
                    }
                }
                switch result {
                case .ok(let peer): return .accepted(Int32(peer), SocketAddress(storage: storage), onAccept)
                case .wouldBlock: return .drained
                case .failed(ECONNABORTED): return .accepted(-1, nil, onAccept)  // gone before we took it
                case .failed(let code):
                    // EMFILE/ENFILE/ENOBUFS: leave the peer in the backlog; the next connect retries.
                    logger.error("accept: \(errnoText(code))")
                    return .drained
                }
            }
            switch outcome {
            case .drained: return false
            case .accepted(let peerFD, let peer, let onAccept):
                if peerFD >= 0 { admit(peerFD, peer?.listenAddress, onAccept) }
            }
        }
        return true
    }

    private func admit(_ peerFD: Int32, _ peer: ListenAddress?, _ onAccept: @Sendable (TCPConnection) -> Void) {
        let peerText = peer?.description ?? "unknown"
        guard liveConnections.load(ordering: .relaxed) < maxConnections else {
            logger.warning("connection cap reached; closing the new connection", ["peer": peerText, "cap": "\(maxConnections)"])
            Glibc.close(peerFD)
            return
        }
        setNoDelay(peerFD)
        if let keepAlive, let failure = keepAlive.apply(to: peerFD) {
            logger.warning("cannot set TCP keepalive: \(errnoText(failure))", ["peer": peerText])
        }
        liveConnections.add(1, ordering: .relaxed)
        let reactor = balancer.choose()
        let connection = TCPConnection(
            fd: peerFD, remote: peer, phase: .open, loop: balancer.loops[reactor], outboundBufferLimit: outboundBufferLimit,
            logger: logger, budget: outboundBudget,
            onFinish: { [self] in
                balancer.release(reactor)
                liveConnections.subtract(1, ordering: .relaxed)
            })
        // epoll_ctl is thread-safe: the connection's own reactor handles its events from here on
        // (those that come before `start` are kept for it).
        if let failure = connection.register() {
            logger.error("cannot watch an accepted connection: \(errnoText(failure))", ["peer": peerText])
            connection.abort()
            return
        }
        logger.debug("accepted", ["peer": peerText, "reactor": "\(reactor)"])
        onAccept(connection)
    }
}
