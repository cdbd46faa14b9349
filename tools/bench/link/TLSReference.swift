import DashportBenchSupport
import DashportLog
import DashportTLS
import DashportTransport
import Synchronization

/// The connect reference: a bare TLS 1.2 handshake and one 100-byte round trip over loopback,
/// with the same DashportTLS contexts as the server and the cars (same certificate, cipher
/// suites, client certificate request) but no AAP: TLS records straight on the TCP stream.
///
/// The server side runs on the same reactor as the Dashport server, the client side on the
/// benchmark's own, so the difference to an AAP connect is the AAP stack's work alone.
final class TLSEchoServer: Sendable {
    let listener: TCPListener

    init(context: TLSContext) throws {
        listener = try TCPListener.bind(ListenAddress.parse("127.0.0.1:0"), logger: .silent)
        listener.start { connection in
            do {
                let peer = TLSPeer(connection: connection, session: try TLSSession(context: context), echo: true)
                connection.start { event in peer.handle(event) }
            } catch {
                connection.abort()
            }
        }
    }

    var address: ListenAddress { listener.boundAddress }

    func stop() { listener.shutdown() }

    /// Connects, handshakes as the client, sends 100 bytes and waits for them to come back.
    /// Returns the milliseconds from before the TCP connect to the echo, and the negotiated
    /// version and cipher suite.
    static func roundTrip(to address: ListenAddress, context: TLSContext, loop: EventLoop) async throws -> (Double, String) {
        let start = ContinuousClock.now
        let connection = try await TCPClient.connect(to: address, loop: loop)
        let session: TLSSession
        do {
            session = try TLSSession(context: context)
        } catch {
            connection.abort()
            throw error
        }
        let peer = TLSPeer(connection: connection, session: session, echo: false)
        let timer = loop.scheduleTimer(after: BenchCar.timeout) { peer.fail("no echo within \(BenchCar.timeout)") }
        defer {
            timer.cancel()
            connection.abort()
        }
        let outcome = await withCheckedContinuation { (waiter: CheckedContinuation<Result<Void, BenchFailure>, Never>) in
            peer.state.withLock { $0.waiter = waiter }
            connection.start { event in peer.handle(event) }
            peer.startHandshake()
        }
        try outcome.get()
        let elapsed = milliseconds(ContinuousClock.now - start)
        return (elapsed, peer.state.withLock { "\($0.session.negotiatedVersion ?? "?") \($0.session.negotiatedCipher ?? "?")" })
    }
}

/// One end of a reference TLS connection. The server end echoes every record; the client end
/// sends 100 bytes once the handshake is done and reports the echo.
final class TLSPeer: Sendable {
    static let payload = [UInt8](repeating: 0x42, count: 100)

    let connection: TCPConnection
    let echo: Bool
    let state: Mutex<State>

    struct State {
        let session: TLSSession
        var buffer: [UInt8] = []
        var waiter: CheckedContinuation<Result<Void, BenchFailure>, Never>?
    }

    init(connection: TCPConnection, session: consuming sending TLSSession, echo: Bool) {
        self.connection = connection
        self.echo = echo
        self.state = Mutex(State(session: session))
    }

    func startHandshake() {
        state.withLock { state in
            do {
                connection.write(try state.session.startHandshake())
            } catch {
                failLocked("\(error)", &state)
            }
        }
    }

    func handle(_ event: TransportEvent) {
        state.withLock { state in
            switch event {
            case .received(let bytes):
                do {
                    try received(bytes, &state)
                } catch {
                    failLocked("\(error)", &state)
                    connection.abort()
                }
            case .closed: failLocked("connection closed", &state)
            }
        }
    }

    func fail(_ reason: String) {
        state.withLock { failLocked(reason, &$0) }
        connection.abort()
    }

    private func failLocked(_ reason: String, _ state: inout State) {
        state.waiter?.resume(returning: .failure(BenchFailure("TLS reference: \(reason)")))
        state.waiter = nil
    }

    private func received(_ bytes: [UInt8], _ state: inout State) throws {
        let session = state.session
        if !session.isHandshakeComplete {
            // The peer speaks again only after our next flight, so no application data can be in here.
            let flight = try session.handshake(received: bytes)
            if !flight.isEmpty { connection.write(flight) }
            if session.isHandshakeComplete && !echo { connection.write(try session.encrypt(Self.payload)) }
            return
        }
        state.buffer += bytes
        while let record = Self.takeRecord(&state.buffer) {
            let plaintext = try session.decrypt(record)
            if echo {
                connection.write(try session.encrypt(plaintext))
            } else if plaintext == Self.payload {
                state.waiter?.resume(returning: .success(()))
                state.waiter = nil
            }
        }
    }

    /// Cuts one whole TLS record (5-byte header with a big-endian length) off the front.
    static func takeRecord(_ buffer: inout [UInt8]) -> [UInt8]? {
        guard buffer.count >= 5 else { return nil }
        let length = Int(buffer[3]) << 8 | Int(buffer[4])
        guard buffer.count >= 5 + length else { return nil }
        let record = Array(buffer[..<(5 + length)])
        buffer.removeFirst(5 + length)
        return record
    }
}
