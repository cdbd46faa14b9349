import DashportBenchSupport
import DashportLog
import DashportSession
import DashportTransport
import Synchronization

/// The CPU reference: what only writing the audio costs. The same number of TCP connections on
/// loopback, accepted on the server's reactor (``EventLoop/shared``); a timer on that reactor at
/// the pump's cadence (packet `n` at `start + n × 2048 / 48 kHz`, counted in frames, two at the
/// start as the pump's lead) writes one prebuilt buffer of a DATA frame's size on the wire to
/// every connection. No TLS, no AAP framing, no ACKs, no per-car state: the floor under the
/// server's cost. The receiving ends sit on the benchmark's car reactor and discard what they read.
final class ReferenceStream: Sendable {
    private let listener: TCPListener
    private let accepted = Mutex<[TCPConnection]>([])
    private let clients: [TCPConnection]
    private let packet: [UInt8]
    private let ticks = Mutex(Ticks())

    private struct Ticks {
        var start = ContinuousClock.now
        var made = 0
        var deadline = ContinuousClock.now
        var done: CheckedContinuation<Int, Never>?
    }

    private init(listener: TCPListener, clients: [TCPConnection], packetBytes: Int) {
        self.listener = listener
        self.clients = clients
        self.packet = [UInt8](repeating: 0xA5, count: packetBytes)
    }

    /// Opens `connections` connections from `carLoop` and waits until the listener accepted them all.
    static func open(connections: Int, packetBytes: Int, carLoop: EventLoop) async throws -> ReferenceStream {
        let listener = try TCPListener.bind(
            ListenAddress.parse("127.0.0.1:0"), maxConnections: connections + 16, logger: .silent)
        let acceptedBox = Mutex<[TCPConnection]>([])
        var clients: [TCPConnection] = []
        listener.start { connection in
            connection.start { _ in }
            acceptedBox.withLock { $0.append(connection) }
        }
        for _ in 0..<connections {
            let client = try await TCPClient.connect(to: listener.boundAddress, loop: carLoop)
            client.start { _ in }  // reads and discards
            clients.append(client)
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while acceptedBox.withLock({ $0.count }) < connections {
            guard ContinuousClock.now < deadline else { throw BenchFailure("the reference listener accepted too few connections") }
            try await Task.sleep(for: .milliseconds(5))
        }
        let stream = ReferenceStream(listener: listener, clients: clients, packetBytes: packetBytes)
        stream.accepted.withLock { $0 = acceptedBox.withLock { $0 } }
        return stream
    }

    /// Writes at the pump's cadence for `duration`; returns the packets written to each connection.
    func run(for duration: Duration) async -> Int {
        await withCheckedContinuation { (done: CheckedContinuation<Int, Never>) in
            let now = ContinuousClock.now
            ticks.withLock { $0 = Ticks(start: now, made: 0, deadline: now + duration, done: done) }
            EventLoop.shared.execute { self.tick() }
        }
    }

    func close() {
        accepted.withLock { $0.forEach { $0.abort() } }
        clients.forEach { $0.abort() }
        listener.shutdown()
    }

    /// On the server's reactor: writes every packet that is due to every connection, arms the next.
    private func tick() {
        let now = ContinuousClock.now
        let (due, next, finished) = ticks.withLock { ticks -> (Int, Duration?, CheckedContinuation<Int, Never>?) in
            var due = 0
            while ticks.start + Self.due(ticks.made) <= now {
                ticks.made += 1
                due += 1
            }
            if now >= ticks.deadline {
                defer { ticks.done = nil }
                return (due, nil, ticks.done)
            }
            return (due, ticks.start + Self.due(ticks.made) - now, nil)
        }
        let connections = accepted.withLock { $0 }
        for _ in 0..<due {
            for connection in connections { connection.write(packet) }
        }
        if let next {
            _ = EventLoop.shared.scheduleTimer(after: next) { self.tick() }
        } else if let finished {
            finished.resume(returning: ticks.withLock { $0.made })
        }
    }

    /// When packet `n` is written, from the start: packets 0, 1 and 2 at once (the pump's two
    /// of lead), then one per packet length.
    static func due(_ n: Int) -> Duration { n < 2 ? .zero : SessionAudioFormat.packetStart(n - 2) }
}
