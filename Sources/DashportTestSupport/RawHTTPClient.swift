public import DashportTransport
import Foundation
public import Testing

/// A test's HTTP client on a real TCP connection: writes request bytes as given (malformed ones
/// too) and reads what the server sends, so tests see the exact bytes, pipelining and closes.
public final class RawHTTPClient: Sendable {
    public struct Received: Sendable {
        public var bytes: [UInt8] = []
        public var closed = false
        public var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    public let connection: TCPConnection
    public let received = Watched(Received())

    public static func connect(to address: ListenAddress) async throws -> RawHTTPClient {
        let client = RawHTTPClient(connection: try await TCPClient.connect(to: address))
        client.connection.start { [received = client.received] event in
            received.update { state in
                switch event {
                case .received(let bytes): state.bytes += bytes
                case .closed: state.closed = true
                }
            }
        }
        return client
    }

    private init(connection: TCPConnection) {
        self.connection = connection
    }

    public func send(_ text: String) { connection.write(Array(text.utf8)) }

    /// Waits until what arrived contains `fragment` `count` times (or the server closed) and returns the text.
    @discardableResult
    public func waitFor(_ fragment: String, count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let state = try await received.wait("\"\(fragment)\" from the server", sourceLocation: sourceLocation) {
            $0.text.components(separatedBy: fragment).count > count || $0.closed
        }
        #expect(
            state.text.components(separatedBy: fragment).count > count, "got: \(state.text.prefix(2000))", sourceLocation: sourceLocation)
        return state.text
    }

    /// Waits until the server closed the connection and returns everything it sent.
    @discardableResult
    public func waitForClose(sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        try await received.wait("the server to close", sourceLocation: sourceLocation) { $0.closed }.text
    }

    /// One GET on a new connection, `Connection: close`: the whole answer (head and body).
    public static func get(_ target: String, from address: ListenAddress) async throws -> (status: Int, head: String, body: [UInt8]) {
        let client = try await connect(to: address)
        client.send("GET \(target) HTTP/1.1\r\nHost: \(address)\r\nConnection: close\r\n\r\n")
        let bytes = try await client.received.wait("the answer to GET \(target)") { $0.closed }.bytes
        return Self.split(bytes)
    }

    /// One POST of a JSON body on a new connection, `Connection: close`.
    public static func post(_ target: String, json: String, to address: ListenAddress) async throws -> (
        status: Int, head: String, body: [UInt8]
    ) {
        let client = try await connect(to: address)
        let body = Array(json.utf8)
        client.send(
            "POST \(target) HTTP/1.1\r\nHost: \(address)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
                + json)
        let bytes = try await client.received.wait("the answer to POST \(target)") { $0.closed }.bytes
        return Self.split(bytes)
    }

    /// Status, head text and body of one answer.
    public static func split(_ bytes: [UInt8]) -> (status: Int, head: String, body: [UInt8]) {
        let marker: [UInt8] = [13, 10, 13, 10]
        var end = bytes.count
        if bytes.count >= 4 {
            for index in 0...(bytes.count - 4) where Array(bytes[index..<index + 4]) == marker {
                end = index
                break
            }
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (status, head, Array(bytes[min(bytes.count, end + 4)...]))
    }
}
