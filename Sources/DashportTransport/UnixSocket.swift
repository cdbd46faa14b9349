import CDashportLinux
public import DashportLog
import Glibc
import Synchronization

/// A listening Unix-domain stream socket for local tools (`dashport ctl`): each accepted peer is a
/// ``TCPConnection`` on the same reactor (the connection type only moves bytes on a descriptor).
///
/// Created safely: an existing path that is not a socket is refused, never replaced; a socket
/// another process still listens on is refused; a stale socket (nobody listening) is removed. The
/// socket is made mode 0600 before it listens, so no one else can connect even for a moment; the
/// directory's own permissions are the second fence. Beyond `maxConnections` a new peer is closed
/// at once, or (`evictingOldest`, the control socket) the oldest connection is closed to make room
/// for it: only the owner can connect, and the owner's own stuck script holding every slot must
/// not lock out the owner's next `dashport ctl` (a healthy request lasts milliseconds, so the
/// oldest is the stuck one). On shutdown the path is removed if it is still this socket.
public final class UnixListener: Sendable {
    public let path: String
    public let maxConnections: Int
    /// At the cap, close the oldest connection for a new one (else the new one is closed).
    public let evictingOldest: Bool
    private let fd: Int32
    private let id: UInt64
    private let loop: EventLoop
    private let logger: Logger
    /// What the socket is for, in logs ("control", "audio input").
    private let kind: String
    private let inode: (dev: UInt64, ino: UInt64)
    private let handler = Mutex<(@Sendable (TCPConnection) -> Void)?>(nil)
    private let live = Atomic<Int>(0)
    /// Open connections, oldest first (touched on the reactor thread and by their finish).
    private let open = Mutex<[(id: ObjectIdentifier, connection: TCPConnection)]>([])
    private let closed = Atomic<Bool>(false)

    /// The longest path a Unix socket can have (`sun_path` less its terminating NUL).
    public static let maxPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Binds `path` (mode 0600) and listens; throws ``TransportError/io(_:)`` with a clear reason.
    public static func bind(
        path: String, maxConnections: Int = 8, evictingOldest: Bool = false, outboundBufferLimit: Int = 1 << 20, logger: Logger,
        loop: EventLoop = .shared, kind: String = "control"
    ) throws(TransportError) -> UnixListener {
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else {
                throw .io("\(path) exists and is not a socket; refusing to replace it (move it away if it is not needed)")
            }
            switch probe(path) {
            case 0, EAGAIN:
                throw .io("another server is listening on \(path) (is dashport already running with this state directory?)")
            case ECONNREFUSED:
                guard unlink(path) == 0 else { throw .io("cannot remove the stale socket \(path): \(errnoText(errno))") }
                logger.labelled(kind).notice("removed a stale \(kind) socket", ["path": path])
            case let code:
                throw .io("\(path) is a socket that cannot be checked: \(errnoText(code)); refusing to replace it")
            }
        }
        let fd = socket(AF_UNIX, streamSocketType, 0)
        guard fd >= 0 else { throw .io("socket: \(errnoText(errno))") }
        func fail(_ what: String) -> TransportError {
            let text = errnoText(errno)
            Glibc.close(fd)
            return .io("\(what) \(path): \(text)")
        }
        // bind never follows or replaces an existing name: a file that appeared since the check fails here.
        guard withUnixAddress(path, { Glibc.bind(fd, $0, $1) }) == 0 else {
            if errno == ENAMETOOLONG {
                Glibc.close(fd)
                throw .io("\(path) is longer than \(maxPathBytes) bytes, too long for a socket")
            }
            throw fail("cannot bind")
        }
        guard chmod(path, 0o600) == 0 else {
            unlink(path)
            throw fail("cannot make private (chmod 0600)")
        }
        guard lstat(path, &status) == 0 else {
            unlink(path)
            throw fail("cannot stat")
        }
        guard listen(fd, 16) == 0 else {
            unlink(path)
            throw fail("cannot listen on")
        }
        return UnixListener(
            fd: fd, path: path, inode: (UInt64(status.st_dev), UInt64(status.st_ino)), maxConnections: maxConnections,
            evictingOldest: evictingOldest, logger: logger, loop: loop, kind: kind)
    }

    private init(
        fd: Int32, path: String, inode: (dev: UInt64, ino: UInt64), maxConnections: Int, evictingOldest: Bool, logger: Logger,
        loop: EventLoop, kind: String
    ) {
        self.kind = kind
        self.evictingOldest = evictingOldest
        self.fd = fd
        self.path = path
        self.inode = inode
        self.maxConnections = maxConnections
        self.logger = logger.labelled("transport").with("socket", path)
        self.loop = loop
        self.id = loop.makeID()
    }

    /// Starts accepting; `onAccept` runs on the reactor thread for each peer, which it must start.
    public func start(onAccept: @escaping @Sendable (TCPConnection) -> Void) {
        handler.withLock { $0 = onAccept }
        if let code = loop.register(self, id: id, fd: fd, events: EventLoop.input | EventLoop.edgeTriggered) {
            logger.error("cannot watch the \(kind) socket: \(errnoText(code))")
        }
    }

    /// Live connections accepted and not yet closed.
    public var connectionCount: Int { live.load(ordering: .relaxed) }

    /// Stops accepting, closes the socket and removes its path (if it is still this socket).
    public func shutdown() {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        loop.deregister(id: id, fd: fd)
        Glibc.close(fd)
        var status = stat()
        if lstat(path, &status) == 0, UInt64(status.st_dev) == inode.dev, UInt64(status.st_ino) == inode.ino {
            unlink(path)
        }
    }

    /// 0 when something listens on `path`, else the connect errno (ECONNREFUSED: stale).
    private static func probe(_ path: String) -> Int32 {
        let fd = socket(AF_UNIX, streamSocketType, 0)
        guard fd >= 0 else { return errno }
        defer { Glibc.close(fd) }
        return withUnixAddress(path, { Glibc.connect(fd, $0, $1) }) == 0 ? 0 : errno
    }
}

extension UnixListener: Selectable {
    func handleEvents(_ events: UInt32, scratch: UnsafeMutableRawBufferPointer) -> Bool {
        for _ in 0..<16 {
            switch systemCall({ Int(cdashport_accept4(fd, nil, nil, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))) }) {
            case .ok(let peer): admit(Int32(peer))
            case .wouldBlock: return false
            case .failed(ECONNABORTED): continue
            case .failed(let code):
                logger.error("accept: \(errnoText(code))")
                return false
            }
        }
        return true
    }

    private func admit(_ peer: Int32) {
        guard let onAccept = handler.withLock({ $0 }) else {
            Glibc.close(peer)
            return
        }
        if live.load(ordering: .relaxed) >= maxConnections {
            guard evictingOldest, let oldest = open.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
                logger.warning("\(kind) connection cap reached; closing the new connection", ["cap": "\(maxConnections)"])
                Glibc.close(peer)
                return
            }
            logger.warning("\(kind) connection cap reached; closing the oldest connection to make room", ["cap": "\(maxConnections)"])
            oldest.connection.abort()
        }
        live.add(1, ordering: .relaxed)
        let box = Mutex<ObjectIdentifier?>(nil)
        let connection = TCPConnection(
            fd: peer, remote: nil, phase: .open, loop: loop, outboundBufferLimit: 1 << 20, logger: logger,
            onFinish: { [self] in
                live.subtract(1, ordering: .relaxed)
                if let id = box.withLock({ $0 }) { open.withLock { $0.removeAll { $0.id == id } } }
            })
        let id = ObjectIdentifier(connection)
        box.withLock { $0 = id }
        open.withLock { $0.append((id, connection)) }
        if let failure = connection.register() {
            logger.error("cannot watch a \(kind) connection: \(errnoText(failure))")
            connection.abort()
            return
        }
        onAccept(connection)
    }
}

/// Connecting to a local Unix socket (`dashport ctl`, tests).
public enum UnixClient {
    /// Connects to `path`; the connection is not yet started. Throws with a reason a person acts on.
    public static func connect(path: String, loop: EventLoop = .shared) throws(TransportError) -> TCPConnection {
        let fd = socket(AF_UNIX, streamSocketType, 0)
        guard fd >= 0 else { throw .io("socket: \(errnoText(errno))") }
        guard withUnixAddress(path, { Glibc.connect(fd, $0, $1) }) == 0 else {
            let code = errno
            Glibc.close(fd)
            switch code {
            case ENOENT: throw .io("no server: \(path) does not exist (is dashport serve running with this state directory?)")
            case ECONNREFUSED: throw .io("no server is listening on \(path) (a stale socket: the server has stopped)")
            case EAGAIN: throw .io("the server is busy (\(path) has no room for another connection); try again")
            case EACCES: throw .io("permission denied on \(path) (the socket is private to the user the server runs as)")
            case ENAMETOOLONG: throw .io("\(path) is too long for a socket")
            default: throw .io("cannot connect to \(path): \(errnoText(code))")
            }
        }
        let connection = TCPConnection(fd: fd, remote: nil, phase: .open, loop: loop, outboundBufferLimit: 1 << 20, logger: .silent)
        if let code = connection.register() {
            connection.abort()
            throw .io("cannot watch the control connection: \(errnoText(code))")
        }
        return connection
    }
}

/// Calls `body` with `path` as a `sockaddr_un`; a path too long fails with ENAMETOOLONG.
private func withUnixAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count <= UnixListener.maxPathBytes, !bytes.contains(0) else {
        errno = ENAMETOOLONG
        return -1
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
}
