import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Serves one body for every GET on 127.0.0.1 (any free port): a thread per connection,
/// `Connection: close`. Just enough HTTP for the cold-request benchmark.
final class BenchHTTPServer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let response: [UInt8]

    enum Failure: Error { case cannotListen }

    init(body: [UInt8]) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening =
            fd >= 0
            && withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                    bind(fd, raw, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, raw, &length) == 0
                }
            }
        guard listening else { throw Failure.cannotListen }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let head = "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        response = Array(head.utf8) + body
        Thread { [self] in acceptLoop() }.start()
    }

    /// Shuts the listener down; the accept thread closes it.
    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            Thread { [self] in serve(client) }.start()
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.suffix(4).elementsEqual([13, 10, 13, 10]) {
            let n = recv(client, &buffer, buffer.count, 0)
            guard n > 0 else { return }
            request += buffer[0..<n]
        }
        var sent = 0
        while sent < response.count {
            let n = response[sent...].withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return }
            sent += n
        }
    }
}
