import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1, the cover host of the artwork and fault tests: one thread
/// per connection, `Connection: close`, routes by path prefix, and a count of requests per path.
public final class LoopbackHTTPServer: Sendable {
    public enum Reply: Sendable {
        /// 200 with a body; `announceLength: false` sends no Content-Length (body ends at close).
        case body([UInt8], contentType: String = "application/octet-stream", announceLength: Bool = true)
        case status(Int)
        case redirect(to: String)
        /// A Content-Length header of this many bytes, then nothing: a too large body announced.
        case announce(length: Int)
        /// Headers and body never come; the connection is held until the client gives up.
        case stall
        /// `/hop/N` redirects to `/hop/N-1` ... `/hop/0`, which answers with the reply given.
        case hops(final: [UInt8])
        /// These header lines (after the status line, before `Connection: close`) and body as given,
        /// then the connection closes: a body cut short, or one sent with a Content-Encoding.
        case raw(headers: [String], body: [UInt8])
        /// 200 with a Content-Length of `count`, then one byte every `interval`.
        case trickle(count: Int, interval: Duration)
    }

    public let port: UInt16
    private let listener: Int32
    private let routes: Mutex<[(prefix: String, reply: Reply)]>
    private let counts = Mutex<[String: Int]>([:])

    public init(routes: [(String, Reply)]) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServerError.system("socket") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw ServerError.system("bind")
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        self.routes = Mutex(routes.map { (prefix: $0.0, reply: $0.1) })
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    public enum ServerError: Error { case system(String) }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Requests seen for exactly this path.
    public func requests(to path: String) -> Int { counts.withLock { $0[path] ?? 0 } }

    /// All requests seen.
    public var totalRequests: Int { counts.withLock { $0.values.reduce(0, +) } }

    /// Replaces (or adds) the reply for a prefix.
    public func route(_ prefix: String, _ reply: Reply) {
        routes.withLock { routes in
            routes.removeAll { $0.prefix == prefix }
            routes.insert((prefix, reply), at: 0)
        }
    }

    /// Stops accepting; connections in progress finish on their own. Only shuts the listener
    /// down: the accept thread closes it, so its number cannot be reused (and accepted on) while
    /// that thread still runs.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.containsHeaderEnd {
            let n = recv(client, &buffer, buffer.count, 0)
            guard n > 0 else { return }
            request += buffer[0..<n]
        }
        let line = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self).split(separator: " ")
        let path = line.count > 1 ? String(line[1]) : "/"
        counts.withLock { $0[path, default: 0] += 1 }
        let reply = routes.withLock { routes in routes.first { path.hasPrefix($0.prefix) }?.reply } ?? .status(404)
        switch reply {
        case .body(let body, let contentType, let announceLength):
            let length = announceLength ? "Content-Length: \(body.count)\r\n" : ""
            send(client, "HTTP/1.1 200 OK\r\nContent-Type: \(contentType)\r\n\(length)Connection: close\r\n\r\n", body)
        case .status(let code):
            send(client, "HTTP/1.1 \(code) Status\r\nContent-Length: 9\r\nConnection: close\r\n\r\n", Array("not here\n".utf8))
        case .redirect(let location):
            send(client, "HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", [])
        case .announce(let length):
            send(client, "HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n", [])
            while recv(client, &buffer, buffer.count, 0) > 0 {}
        case .stall:
            while recv(client, &buffer, buffer.count, 0) > 0 {}  // until the client hangs up
        case .raw(let headers, let body):
            let lines = headers.map { $0 + "\r\n" }.joined()
            send(client, "HTTP/1.1 200 OK\r\n\(lines)Connection: close\r\n\r\n", body)
        case .trickle(let count, let interval):
            send(client, "HTTP/1.1 200 OK\r\nContent-Length: \(count)\r\nConnection: close\r\n\r\n", [])
            for _ in 0..<count {
                Thread.sleep(forTimeInterval: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18)
                var byte: UInt8 = 0x41
                guard Glibc.send(client, &byte, 1, Int32(MSG_NOSIGNAL)) == 1 else { return }
            }
        case .hops(let final):
            let remaining = Int(path.split(separator: "/").last ?? "") ?? 0
            if remaining <= 0 {
                send(client, "HTTP/1.1 200 OK\r\nContent-Length: \(final.count)\r\nConnection: close\r\n\r\n", final)
            } else {
                let next = path.split(separator: "/").dropLast().joined(separator: "/")
                let location = "/\(next)/\(remaining - 1)"
                send(client, "HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", [])
            }
        }
    }

    private func send(_ client: Int32, _ head: String, _ body: [UInt8]) {
        let bytes = Array(head.utf8) + body
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return }
            done += n
        }
    }
}

private extension [UInt8] {
    var containsHeaderEnd: Bool {
        count >= 4 && (0...(count - 4)).contains { self[$0] == 13 && self[$0 + 1] == 10 && self[$0 + 2] == 13 && self[$0 + 3] == 10 }
    }
}
