public import DashportTransport

#if canImport(Glibc)
import Glibc
#endif

/// A loopback port that refuses every connection for as long as this value lives: a TCP socket
/// bound to 127.0.0.1 that never listens. The kernel answers a connect to it with a reset
/// (`ECONNREFUSED`), and, unlike a port that was bound and then freed, no other test's listener can
/// be given the same port in between (the bind holds it).
public final class RefusingPort: Sendable {
    public let address: ListenAddress
    private let fd: Int32

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.system("socket", errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound, let listenAddress = ListenAddress(host: "127.0.0.1", port: UInt16(bigEndian: address.sin_port)) else {
            let code = errno
            close(fd)
            throw Failure.system("bind", code)
        }
        self.fd = fd
        self.address = listenAddress
    }

    deinit { close(fd) }

    public enum Failure: Error { case system(String, Int32) }
}
