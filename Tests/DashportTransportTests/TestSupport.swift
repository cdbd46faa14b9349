import DashportLog
import DashportTestSupport
import DashportTransport
import Synchronization
import Testing

/// Everything one stream delivered to its handler, and anything delivered after `.closed`.
struct Received: Sendable {
    var bytes: [UInt8] = []
    var closes: [TransportError?] = []
    var eventsAfterClose = 0
    var isClosed: Bool { !closes.isEmpty }
}

/// Records a stream's events.
final class Probe: Sendable {
    let received = Watched(Received())

    var handler: @Sendable (TransportEvent) -> Void {
        { [received] event in
            received.update { state in
                if state.isClosed { state.eventsAfterClose += 1 }
                switch event {
                case .received(let bytes): state.bytes += bytes
                case .closed(let reason): state.closes.append(reason)
                }
            }
        }
    }

    /// Waits for `count` bytes; records an issue if the stream closed first.
    func waitForBytes(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let state = try await received.wait("\(count) bytes (or a close)") { $0.bytes.count >= count || $0.isClosed }
        #expect(
            state.bytes.count >= count, "closed after \(state.bytes.count) bytes: \(state.closes)",
            sourceLocation: sourceLocation)
    }

    @discardableResult
    func waitForClose() async throws -> Received {
        try await received.wait("the stream to close") { $0.isClosed }
    }
}

/// A loopback listener that records each accepted connection with a probe, and echoes if asked to
/// (the transport's own fixture; `DashportTestSupport`'s `TestServer` is a whole Dashport server).
final class EchoServer: Sendable {
    let listener: TCPListener
    let accepted = Watched<[Accepted]>([])

    struct Accepted: Sendable {
        let connection: TCPConnection
        let probe: Probe
    }

    init(
        _ address: String = "127.0.0.1:0", echo: Bool = true, maxConnections: Int = 1024,
        outboundBufferLimit: Int = TCPConnection.defaultOutboundBufferLimit, receiveBufferSize: Int? = nil, logger: Logger = .silent
    ) throws {
        let address = try #require(ListenAddress(parsing: address))
        listener = try TCPListener.bind(
            address, maxConnections: maxConnections,
            outboundBufferLimit: outboundBufferLimit, receiveBufferSize: receiveBufferSize, logger: logger)
        listener.start { [accepted] connection in
            let probe = Probe()
            let record = probe.handler
            connection.start { [weak connection] event in
                if echo, case .received(let bytes) = event { connection?.write(bytes) }
                record(event)
            }
            accepted.update { $0.append(Accepted(connection: connection, probe: probe)) }
        }
    }

    var address: ListenAddress { listener.boundAddress }

    /// The `index`-th accepted connection (0-based), once it is accepted.
    func connection(_ index: Int) async throws -> Accepted {
        try await accepted.wait("the server to accept connection #\(index + 1)") { $0.count > index }[index]
    }

    deinit { listener.shutdown() }
}

/// Connects a client and starts it with a fresh probe.
func connectedClient(to address: ListenAddress) async throws -> (TCPConnection, Probe) {
    let connection = try await TCPClient.connect(to: address)
    let probe = Probe()
    connection.start(probe.handler)
    return (connection, probe)
}

/// Deterministic bytes with a prime period, so a lost, repeated or reordered chunk shows.
func pattern(_ count: Int, seed: Int = 0) -> [UInt8] {
    // A 251-byte period copied out: fast even in debug builds, where the tests run.
    let period = (0..<251).map { UInt8(truncatingIfNeeded: ($0 &+ seed &* 7) % 251) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count + 251)
    while bytes.count < count { bytes += period }
    bytes.removeLast(bytes.count - count)
    return bytes
}

/// Returns once the loop has run everything queued on it so far (such as pending `.closed` events).
func settle(_ loop: EventLoop = .shared) async {
    for _ in 0..<2 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.execute { continuation.resume() }
        }
    }
}
