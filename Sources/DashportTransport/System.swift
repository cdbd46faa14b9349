import CDashportLinux
import Glibc

// One place for the system calls the transport makes, so EINTR, EAGAIN and errno are handled the
// same way everywhere (style-examples.md §11).

/// The outcome of one non-blocking system call.
enum SystemCallResult {
    /// The call's non-negative return value.
    case ok(Int)
    /// EAGAIN / EWOULDBLOCK: try again when epoll says the descriptor is ready.
    case wouldBlock
    /// Any other failure, with its errno.
    case failed(Int32)
}

/// Runs `body` (a system call returning -1 and setting errno on failure), retrying EINTR.
@inline(__always)
func systemCall(_ body: () -> Int) -> SystemCallResult {
    while true {
        let result = body()
        if result >= 0 { return .ok(result) }
        let code = errno
        if code == EINTR { continue }
        if code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock }
        return .failed(code)
    }
}

/// The system's text for an errno: "Connection refused".
func errnoText(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// The transport error for a failed read or write on a connected socket.
func connectionError(_ code: Int32, during operation: String) -> TransportError {
    switch code {
    case ECONNRESET, EPIPE, ECONNABORTED: .reset
    default: .io("\(operation): \(errnoText(code))")
    }
}

/// Sets an integer socket option; returns errno on failure.
@discardableResult
func setSocketOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) -> Int32? {
    var value = value
    let result = setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    return result == 0 ? nil : errno
}

/// TCP_NODELAY: AAP sends small frames back to back; Nagle would hold them (aap-protocol.md §5.3, §8 #10).
func setNoDelay(_ fd: Int32) {
    setSocketOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
}

/// The pending error of a socket (SO_ERROR), 0 when there is none.
func pendingSocketError(_ fd: Int32) -> Int32 {
    var code: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { return errno }
    return code
}

/// Stream socket type flags: non-blocking and close-on-exec from the start.
let streamSocketType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)

/// An IPv4 or IPv6 socket address in the form the kernel takes.
enum SocketAddress {
    case v4(sockaddr_in)
    case v6(sockaddr_in6)

    /// Parses a numeric host (no brackets); nil when it is neither IPv4 nor IPv6.
    init?(host: String, port: UInt16) {
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            self = .v4(v4)
            return
        }
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            self = .v6(v6)
            return
        }
        return nil
    }

    init?(_ address: ListenAddress) {
        self.init(host: address.host, port: address.port)
    }

    /// The address the kernel filled in (accept, getsockname); nil for other families.
    init?(storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            self = .v4(withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) })
        case AF_INET6:
            self = .v6(withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) })
        default:
            return nil
        }
    }

    var family: Int32 {
        switch self {
        case .v4: AF_INET
        case .v6: AF_INET6
        }
    }

    var port: UInt16 {
        switch self {
        case .v4(let address): UInt16(bigEndian: address.sin_port)
        case .v6(let address): UInt16(bigEndian: address.sin6_port)
        }
    }

    /// The canonical numeric text of the host (inet_ntop).
    var hostText: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch self {
        case .v4(var address): _ = inet_ntop(AF_INET, &address.sin_addr, &text, socklen_t(text.count))
        case .v6(var address): _ = inet_ntop(AF_INET6, &address.sin6_addr, &text, socklen_t(text.count))
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    var listenAddress: ListenAddress { ListenAddress(canonicalHost: hostText, port: port) }

    func withSockAddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        switch self {
        case .v4(var address):
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .v6(var address):
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
    }

    /// Calls a system call that fills in a socket address (accept4, getsockname) and decodes it.
    static func filling(_ call: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32) -> (Int32, SocketAddress?) {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call($0, &length) }
        }
        return (result, result >= 0 ? SocketAddress(storage: storage) : nil)
    }
}
