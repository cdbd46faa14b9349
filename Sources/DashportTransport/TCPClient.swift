import CDashportLinux
public import DashportLog
import Glibc
import Synchronization

/// Outgoing TCP connections: the head-unit emulator's side, and the peer in tests.
public enum TCPClient {
    /// Default cap on bytes queued by a client (a head unit, a test peer): 8 MiB. Larger than a
    /// server connection's, since a client's writes are its own requests, not a peer's doing.
    public static let defaultOutboundBufferLimit = 8 * 1024 * 1024

    /// Connects to `address` without blocking a thread; the connection is TCP_NODELAY and not yet
    /// started. Cancelling the task abandons the attempt with ``TransportError/connect(_:_:)``.
    public static func connect(
        to address: ListenAddress,
        outboundBufferLimit: Int = TCPClient.defaultOutboundBufferLimit,
        logger: Logger = .silent,
        loop: EventLoop = .shared
    ) async throws(TransportError) -> TCPConnection {
        guard let target = SocketAddress(address) else { throw .connect(address, "not a numeric address") }
        let fd = socket(target.family, streamSocketType, 0)
        guard fd >= 0 else { throw .connect(address, "socket: \(errnoText(errno))") }
        setNoDelay(fd)
        let phase: TCPConnection.Phase
        if target.withSockAddr({ Glibc.connect(fd, $0, $1) }) == 0 {
            phase = .open
        } else if errno == EINPROGRESS {
            phase = .connecting(nil)
        } else {
            let text = errnoText(errno)
            Glibc.close(fd)
            throw .connect(address, text)
        }
        let connection = TCPConnection(
            fd: fd, remote: address, phase: phase, loop: loop, outboundBufferLimit: outboundBufferLimit,
            logger: logger.labelled("transport"))
        let outcome = await withTaskCancellationHandler {
            await connection.waitUntilConnected()
        } onCancel: {
            connection.cancelConnect()
        }
        switch outcome {
        case .success:
            return connection
        case .failure(let error):
            if case .connect = error { throw error }
            throw .connect(address, error.description)
        }
    }
}

extension TCPConnection {
    /// Registers the socket with the loop and waits until the connect completes or fails.
    func waitUntilConnected() async -> Result<Void, TransportError> {
        await withCheckedContinuation { (waiter: ConnectWaiter) in
            enum Next {
                case register(immediate: Bool)
                case resume(Result<Void, TransportError>)
            }
            let next = state.withLock { state -> Next in
                switch state.phase {
                case .connecting:
                    state.phase = .connecting(waiter)  // resumed by handleEvents or closeLocked
                    return .register(immediate: false)
                case .open:
                    return .register(immediate: true)
                case .closed(let reason):
                    return .resume(.failure(reason ?? .io("cancelled")))
                case .closing:
                    return .resume(.failure(.io("closed while connecting")))
                }
            }
            switch next {
            case .resume(let result):
                waiter.resume(returning: result)
            case .register(let immediate):
                if let code = register() {
                    let reason = TransportError.io("epoll_ctl: \(errnoText(code))")
                    loop.execute { [self] in closeOnLoop(reason, how: .plain) }
                    if immediate { waiter.resume(returning: .failure(reason)) }
                } else if immediate {
                    waiter.resume(returning: .success(()))
                }
            }
        }
    }

    /// Abandons a connect still in progress (task cancellation).
    func cancelConnect() {
        guard loop.isCurrentThread else {
            loop.execute { [self] in cancelConnect() }
            return
        }
        state.withLock { state -> Finished? in
            guard case .connecting = state.phase else { return nil }
            return closeLocked(&state, remote.map { .connect($0, "cancelled") } ?? .io("cancelled"), how: .plain)
        }?.notify()
    }
}
