import DashportBenchSupport
import DashportTransport
import Synchronization
import DashportLog

/// The throughput reference: request/response over plain TCP on loopback, no TLS, no AAP, with
/// the sizes a GET_CHILDREN and its BROWSE_RESULT have on the wire. Every `requestSize` bytes
/// in are answered with `responseSize` bytes out, one write each, like the server's one write
/// per frame. Runs on the same reactors as the Dashport server (`--reactors`), its connections
/// spread over them the same way.
final class RawEchoServer: Sendable {
    let listener: TCPListener
    let requestSize: Int

    init(requestSize: Int, responseSize: Int, reactors: Int) throws {
        let response = [UInt8](repeating: 0x5A, count: responseSize)
        self.requestSize = requestSize
        listener = try TCPListener.bind(
            ListenAddress.parse("127.0.0.1:0"), logger: .silent, connectionLoops: EventLoop.reactors(reactors))
        listener.start { connection in
            let pending = Mutex(0)
            connection.start { event in
                guard case .received(let bytes) = event else { return }
                let answers = pending.withLock { pending in
                    pending += bytes.count
                    defer { pending %= requestSize }
                    return pending / requestSize
                }
                for _ in 0..<answers { connection.write(response) }
            }
        }
    }

    var address: ListenAddress { listener.boundAddress }

    func stop() { listener.shutdown() }
}

/// One client connection to a ``RawEchoServer``: keeps requests in flight like ``BenchCar/load(parentId:depth:until:)``.
/// Answers come back in order, so the send times are a queue.
final class RawEchoClient: Sendable {
    let connection: TCPConnection
    let request: [UInt8]
    let responseSize: Int
    private let loop: EventLoop
    private let state = Mutex(State())

    private struct State {
        var received = 0
        var sentAt: [ContinuousClock.Instant] = []
        var nextAnswer = 0
        var deadline: ContinuousClock.Instant = .now
        var latencies: [Double] = []
        var firstSent: ContinuousClock.Instant?
        var lastAnswer: ContinuousClock.Instant?
        var waiter: CheckedContinuation<LoadResult, Never>?
        var failure: String?
    }

    private init(connection: TCPConnection, requestSize: Int, responseSize: Int, loop: EventLoop) {
        self.connection = connection
        self.request = [UInt8](repeating: 0xA5, count: requestSize)
        self.responseSize = responseSize
        self.loop = loop
    }

    static func connect(to server: RawEchoServer, responseSize: Int, loop: EventLoop) async throws -> RawEchoClient {
        let connection = try await TCPClient.connect(to: server.address, loop: loop)
        let client = RawEchoClient(connection: connection, requestSize: server.requestSize, responseSize: responseSize, loop: loop)
        connection.start { event in client.handle(event) }
        return client
    }

    /// One request and its answer, in milliseconds (the connect itself not included).
    func roundTrip() async -> LoadResult {
        await load(depth: 1, until: .now)
    }

    func load(depth: Int, until deadline: ContinuousClock.Instant) async -> LoadResult {
        let timer = loop.scheduleTimer(after: deadline - .now + BenchCar.timeout) { self.fail("answers stopped") }
        defer { timer.cancel() }
        return await withCheckedContinuation { (waiter: CheckedContinuation<LoadResult, Never>) in
            state.withLock { state in
                state = State(deadline: deadline, firstSent: .now, waiter: waiter)
                for _ in 0..<depth { sendLocked(&state) }
            }
        }
    }

    func abort() { connection.abort() }

    private func sendLocked(_ state: inout State) {
        state.sentAt.append(.now)
        connection.write(request)
    }

    private func handle(_ event: TransportEvent) {
        state.withLock { state in
            guard case .received(let bytes) = event else {
                return failLocked("connection closed", &state)
            }
            guard state.waiter != nil else { return }
            state.received += bytes.count
            let now = ContinuousClock.now
            while state.received >= responseSize, state.nextAnswer < state.sentAt.count {
                state.received -= responseSize
                state.latencies.append(milliseconds(now - state.sentAt[state.nextAnswer]))
                state.nextAnswer += 1
                state.lastAnswer = now
                if now < state.deadline { sendLocked(&state) }
            }
            if state.nextAnswer == state.sentAt.count { finishLocked(&state) }
        }
    }

    private func fail(_ reason: String) {
        state.withLock { failLocked(reason, &$0) }
        connection.abort()
    }

    private func failLocked(_ reason: String, _ state: inout State) {
        state.failure = reason
        finishLocked(&state)
    }

    private func finishLocked(_ state: inout State) {
        guard let waiter = state.waiter else { return }
        let elapsed = state.firstSent.map { start in state.lastAnswer.map { $0 - start } ?? .zero } ?? .zero
        waiter.resume(returning: LoadResult(latencies: state.latencies, seconds: milliseconds(elapsed) / 1000, failure: state.failure))
        state.waiter = nil
        state.sentAt.removeAll(keepingCapacity: true)
        state.nextAnswer = 0
    }
}
