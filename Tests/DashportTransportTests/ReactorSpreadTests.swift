import DashportLog
import DashportTestSupport
import DashportTransport
import Testing

/// One listener, several reactors (issue 22, item 1): accepted connections go to the reactor with
/// the fewest (taking turns on a tie), each socket stays on its own reactor, and the process-wide
/// outbound budget sheds across them.
@Suite struct ReactorSpreadTests {
    /// A loopback listener on reactor 0 whose connections are spread over the first two reactors.
    static func listener(budget: OutboundBudget = OutboundBudget(), outboundBufferLimit: Int = TCPConnection.defaultOutboundBufferLimit)
        throws -> (TCPListener, Watched<[(TCPConnection, Probe)]>)
    {
        let address = try #require(ListenAddress(parsing: "127.0.0.1:0"))
        let listener = try TCPListener.bind(
            address, outboundBufferLimit: outboundBufferLimit, outboundBudget: budget, logger: .silent,
            connectionLoops: EventLoop.reactors(2))
        let accepted = Watched<[(TCPConnection, Probe)]>([])
        listener.start { connection in
            let probe = Probe()
            let record = probe.handler
            connection.start { [weak connection] event in
                if case .received(let bytes) = event { connection?.write(bytes) }
                record(event)
            }
            accepted.update { $0.append((connection, probe)) }
        }
        return (listener, accepted)
    }

    @Test func theReactorsAreOneProcessWideSetStartingWithTheShared() {
        let two = EventLoop.reactors(2)
        #expect(two.count == 2)
        #expect(two[0] === EventLoop.shared)
        #expect(two[1] !== EventLoop.shared)
        #expect(EventLoop.reactors(2)[1] === two[1], "asked again, the same threads")
        #expect(EventLoop.reactors(0).count == 1)
        #expect((1...EventLoop.maxReactors).contains(EventLoop.defaultReactorCount))
    }

    @Test func connectionsTakeTurnsAndEachSocketStaysOnItsReactor() async throws {
        let (listener, accepted) = try Self.listener()
        defer { listener.shutdown() }
        let reactors = listener.connectionLoops
        var clients: [(TCPConnection, Probe)] = []
        defer { clients.forEach { $0.0.abort() } }
        for index in 0..<4 {
            clients.append(try await connectedClient(to: listener.boundAddress))
            _ = try await accepted.wait("connection \(index + 1) accepted") { $0.count > index }
        }
        #expect(listener.connectionsPerReactor == [2, 2])
        let connections = accepted.value.map(\.0)
        #expect(connections.map { $0.preferredExecutor as? EventLoop }.map { loop in reactors.firstIndex { $0 === loop } } == [0, 1, 0, 1])
        // Writers on pool threads: every byte reaches each socket through its own reactor.
        await withTaskGroup(of: Void.self) { group in
            for (client, _) in clients {
                group.addTask { for _ in 0..<50 { client.write([UInt8](repeating: 7, count: 512)) } }
            }
        }
        for (_, probe) in clients { try await probe.waitForBytes(50 * 512) }
        for (client, _) in clients { client.abort() }
        try await eventually("every connection to finish") { listener.connectionsPerReactor == [0, 0] }
        #expect(EventLoop.socketCallsOffReactor == 0)
    }

    @Test func theReactorWithFewestConnectionsTakesTheNext() async throws {
        let (listener, accepted) = try Self.listener()
        defer { listener.shutdown() }
        var clients: [TCPConnection] = []
        defer { clients.forEach { $0.abort() } }
        for index in 0..<4 {
            clients.append(try await connectedClient(to: listener.boundAddress).0)
            _ = try await accepted.wait("connection \(index + 1) accepted") { $0.count > index }
        }
        // Both of reactor 0's connections leave: the next two go there, not one to each.
        clients[0].abort()
        clients[2].abort()
        try await eventually("reactor 0 to be empty") { listener.connectionsPerReactor == [0, 2] }
        for index in 4..<6 {
            clients.append(try await connectedClient(to: listener.boundAddress).0)
            _ = try await accepted.wait("connection \(index + 1) accepted") { $0.count > index }
        }
        #expect(listener.connectionsPerReactor == [2, 2])
    }

    @Test func theBudgetShedsTheLargestQueuesOnEveryReactor() async throws {
        let budget = OutboundBudget(limit: 4 << 20)
        let (listener, accepted) = try Self.listener(budget: budget, outboundBufferLimit: 64 << 20)
        defer { listener.shutdown() }
        var clients: [TCPConnection] = []
        defer { clients.forEach { $0.abort() } }
        for _ in 0..<4 { clients.append(try await TCPClient.connect(to: listener.boundAddress)) }  // never read
        let connections = try await accepted.wait("four accepted") { $0.count == 4 }
        #expect(listener.connectionsPerReactor == [2, 2])
        // Far more than the kernel's buffers hold, for each of four peers that never read, on both reactors.
        let chunk = pattern(1 << 20)
        for (connection, _) in connections {
            for _ in 0..<16 { connection.write(chunk) }
        }
        for (_, probe) in connections where budget.queuedBytes > budget.limit { _ = try? await probe.waitForClose() }
        await settle()
        #expect(budget.queuedBytes <= budget.limit)
        // Every peer was sent four times the budget: each was the largest queue once. A connection
        // shed from another reactor gives its bytes back at once and is closed by its own reactor
        // a turn later: wait for that close, not for the budget.
        let reactors = listener.connectionLoops
        func shed() -> [Int?] {
            connections.filter { $0.1.received.value.isClosed }.map { connection, _ in
                reactors.firstIndex { $0 === connection.preferredExecutor as? EventLoop }
            }
        }
        try await eventually("connections shed on both reactors") { Set(shed()) == [0, 1] }
        let closes = connections.flatMap { $0.1.received.value.closes }
        #expect(closes.allSatisfy { $0 == .outboundBudgetExhausted(budget.limit) })
    }
}
