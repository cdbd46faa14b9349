import DashportTestSupport
@testable import DashportTLS
import Foundation
import Testing

/// A server session and a client session ready to talk.
struct Pair {
    let server: TLSSession
    let client: TLSSession

    init(policy: PeerPolicy = .acceptAny, clientIdentity: TLSIdentity? = nil, clientCiphers: String? = nil) throws {
        let serverContext = try TLSContext(.server(identity: TestTLS.phoneIdentity.get(), peerPolicy: policy))
        var clientConfiguration = TLSConfiguration.client(identity: clientIdentity)
        clientConfiguration.clientCipherList = clientCiphers
        server = try TLSSession(context: serverContext)
        client = try TLSSession(context: TLSContext(clientConfiguration))
    }

    /// Runs the handshake exactly as ENCAPSULATED_SSL messages would carry it: each array the one
    /// side returns is handed whole to the other. Returns the non-empty messages in order
    /// (ClientHello first). Stops when both sides are done, or when a side has nothing to say.
    @discardableResult
    func handshake() throws(TLSError) -> [[UInt8]] {
        var messages = [try client.startHandshake()]
        var serverTurn = true
        while messages.count < 10, !(server.isHandshakeComplete && client.isHandshakeComplete) {
            let incoming = messages[messages.count - 1]
            let reply = serverTurn ? try server.handshake(received: incoming) : try client.handshake(received: incoming)
            serverTurn.toggle()
            if reply.isEmpty { break }
            messages.append(reply)
        }
        return messages
    }
}

/// One TLS record as seen on the wire.
struct Record: Equatable {
    var contentType: UInt8
    var version: UInt16
    var body: [UInt8]

    /// Splits `bytes` into records; `nil` if they do not end on a record boundary.
    static func parse(_ bytes: [UInt8]) -> [Record]? {
        var records: [Record] = []
        var index = 0
        while index < bytes.count {
            guard index + 5 <= bytes.count else { return nil }
            let length = Int(bytes[index + 3]) << 8 | Int(bytes[index + 4])
            guard index + 5 + length <= bytes.count else { return nil }
            records.append(
                Record(
                    contentType: bytes[index], version: UInt16(bytes[index + 1]) << 8 | UInt16(bytes[index + 2]),
                    body: Array(bytes[(index + 5)..<(index + 5 + length)])))
            index += 5 + length
        }
        return records
    }

    /// Handshake message types in a plaintext handshake record (1 = ClientHello, 2 = ServerHello, ...).
    var handshakeTypes: [UInt8] {
        var types: [UInt8] = []
        var index = 0
        while index + 4 <= body.count {
            types.append(body[index])
            index += 4 + (Int(body[index + 1]) << 16 | Int(body[index + 2]) << 8 | Int(body[index + 3]))
        }
        return types
    }
}

/// Bytes 0, 1, 2, ... wrapping at 251 (a prime, so records never look periodic).
func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8($0 % 251) } }
