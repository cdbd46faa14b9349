import DashportTestSupport
import DashportLog
import DashportTransport
import Testing

/// TCP listener, client and connection over real loopback sockets.
@Suite struct TCPConnectionTests {
    @Test func bindingPortZeroReportsTheRealPort() async throws {
        let server = try EchoServer()
        #expect(server.address.host == "127.0.0.1")
        #expect(server.address.port != 0)
        let (client, _) = try await connectedClient(to: server.address)
        defer { client.abort() }
        _ = try await server.connection(0)
    }

    @Test func echoRoundTrip() async throws {
        let server = try EchoServer()
        let (client, probe) = try await connectedClient(to: server.address)
        defer { client.abort() }
        client.write(Array("hello, car".utf8))
        try await probe.waitForBytes(10)
        #expect(probe.received.value.bytes == Array("hello, car".utf8))
        #expect(client.peerDescription == server.address.description)
        let accepted = try await server.connection(0)
        #expect(accepted.connection.peerDescription.hasPrefix("127.0.0.1:"))
    }

    /// A read shorter than the buffer ends the read turn without asking the socket again (no
    /// EAGAIN recv per audio ACK); an end of stream that came with the last bytes must still be
    /// seen, and bytes that come later still raise a read. Each round: a few bytes, then
    /// (last round) a few bytes and the close in one go from the peer.
    @Test func shortReadsStillSeeTheEndOfStream() async throws {
        let server = try EchoServer(echo: false)
        let (client, probe) = try await connectedClient(to: server.address)
        defer { client.abort() }
        let accepted = try await server.connection(0)
        for round in 1...3 {
            accepted.connection.write([UInt8(round)])
            try await probe.waitForBytes(round)
        }
        accepted.connection.write([4, 5])
        accepted.connection.close()
        let received = try await probe.waitForClose()
        #expect(received.bytes == [1, 2, 3, 4, 5])
        #expect(received.closes == [nil])
    }

    /// A benchmark's seam (`dashport-bench-audio` times DATA by it): with arrival times on, a read
    /// tells how long ago the kernel received its bytes. Bytes held in the socket while reading is
    /// paused are at least as old as that wait, and never older than their send; no clock is
    /// bounded, so the machine's speed does not matter.
    @Test func arrivalTimesTellHowLongBytesWaitedInTheSocket() async throws {
        let server = try EchoServer(echo: false)
        let client = try await TCPClient.connect(to: server.address)
        defer { client.abort() }
        let reads = Watched<[(age: Duration?, at: ContinuousClock.Instant)]>([])
        client.start { [weak client] event in
            guard case .received = event else { return }
            let age = client?.ageOfLastArrival
            reads.update { $0.append((age, ContinuousClock.now)) }
        }
        #expect(client.ageOfLastArrival == nil)
        client.recordArrivalTimes()
        let accepted = try await server.connection(0)
        // The kernel starts stamping once its timestamp switch is on, which a work queue flips
        // after the first socket asks (a deferred static key; on a busy machine, a while later):
        // one byte at a time until a read has a stamp.
        var stamped = false
        var round = 0
        let giveUp = ContinuousClock.now + .seconds(60)
        while !stamped, ContinuousClock.now < giveUp {
            round += 1
            accepted.connection.write([0])
            stamped = try await reads.wait("read \(round)") { [round] in $0.count >= round }[round - 1].age != nil
            await Task.yield()
        }
        try #require(stamped, "the kernel stamped none of \(round) reads in 60 s")
        let before = reads.value.count
        client.pauseReading()
        let sent = ContinuousClock.now
        accepted.connection.write([2, 3, 4])
        try await eventually("the bytes in the client's socket") { client.unreadBytes >= 3 }
        let held = ContinuousClock.now
        client.resumeReading()
        let read = try await reads.wait("the held bytes read") { $0.count > before }[before]
        let age = try #require(read.age, "no arrival time for the held bytes")
        let slack = Duration.milliseconds(1)  // the realtime and monotonic clocks are read apart
        #expect(age + slack >= read.at - held, "they waited in the socket at least since \(held), read at \(read.at): age \(age)")
        #expect(age <= read.at - sent + slack, "older than their send: age \(age), sent \(read.at - sent) before the read")
    }

    @Test func echoRoundTripOverIPv6() async throws {
        let server = try EchoServer("[::1]:0")
        #expect(server.address.description.hasPrefix("[::1]:"))
        let (client, probe) = try await connectedClient(to: server.address)
        defer { client.abort() }
        client.write([1, 2, 3])
        try await probe.waitForBytes(3)
        #expect(probe.received.value.bytes == [1, 2, 3])
        #expect(try await server.connection(0).connection.peerDescription.hasPrefix("[::1]:"))
    }

    @Test func oneMebibyteInOneWriteArrivesIntactAndInOrder() async throws {
        let server = try EchoServer()
        let (client, probe) = try await connectedClient(to: server.address)
        defer { client.abort() }
        let message = pattern(1 << 20)
        client.write(message)
        try await probe.waitForBytes(message.count)
        let echoed = probe.received.value.bytes == message
        #expect(echoed)
        let arrived = try await server.connection(0).probe.received.value.bytes == message
        #expect(arrived)
    }

    @Test func concurrentWritersNeverInterleaveWithinAWrite() async throws {
        let server = try EchoServer()
        let (client, probe) = try await connectedClient(to: server.address)
        defer { client.abort() }
        let writers = 8
        let records = 200
        let size = 1024
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for sequence in 0..<records {
                        // [writer, sequence high, sequence low, writer × 1021]
                        let record =
                            [UInt8(writer), UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
                            + [UInt8](repeating: UInt8(writer), count: size - 3)
                        client.write(record)
                    }
                }
            }
        }
        try await probe.waitForBytes(writers * records * size)
        let bytes = probe.received.value.bytes
        var next = [Int](repeating: 0, count: writers)
        var intact = true
        for start in stride(from: 0, to: bytes.count, by: size) {
            let writer = Int(bytes[start])
            let sequence = Int(bytes[start + 1]) << 8 | Int(bytes[start + 2])
            guard writer < writers, sequence == next[writer],
                bytes[start + 3..<start + size].allSatisfy({ $0 == UInt8(writer) })
            else {
                intact = false
                break
            }
            next[writer] += 1
        }
        #expect(intact, "each write arrives whole, and each writer's writes in order")
        #expect(next == [Int](repeating: records, count: writers))
    }

    @Test func threeHundredConcurrentClientsAllComplete() async throws {
        let server = try EchoServer()
        let address = server.address
        let completed = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<300 {
                group.addTask {
                    let (client, probe) = try await connectedClient(to: address)
                    defer { client.close() }
                    let message = pattern(4096 + index, seed: index)
                    client.write(Array(message[..<1000]))
                    client.write(Array(message[1000...]))
                    try await probe.waitForBytes(message.count)
                    return probe.received.value.bytes == message
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(completed == 300)
    }

    @Test func peerDisconnectingMidStreamClosesOnlyThatConnectionOnce() async throws {
        let server = try EchoServer()
        let (leaving, leavingProbe) = try await connectedClient(to: server.address)
        let (staying, stayingProbe) = try await connectedClient(to: server.address)
        defer { staying.abort() }
        let leavingOnServer = try await server.connection(0)
        leaving.write(pattern(256 * 1024))
        try await leavingOnServer.probe.waitForBytes(1)
        leaving.abort()

        try await leavingOnServer.probe.waitForClose()
        staying.write(Array("still here".utf8))
        try await stayingProbe.waitForBytes(10)
        #expect(stayingProbe.received.value.bytes == Array("still here".utf8))

        await settle()
        #expect(leavingOnServer.probe.received.value.closes.count == 1)
        #expect(leavingOnServer.probe.received.value.eventsAfterClose == 0)
        #expect(leavingProbe.received.value.closes.count == 1)
        #expect(leavingProbe.received.value.closes == [nil])  // we aborted: an orderly close for us
        #expect(try await server.connection(1).probe.received.value.isClosed == false)
    }

    /// The server queues far more than the kernel buffers hold for a client that is not reading yet.
    private func queueBulk(limit: Int = 64 << 20) async throws -> (EchoServer, TCPConnection, EchoServer.Accepted, [UInt8]) {
        let server = try EchoServer(echo: false, outboundBufferLimit: limit)
        let client = try await TCPClient.connect(to: server.address)  // not started: reads nothing
        let accepted = try await server.connection(0)
        let bulk = pattern(16 << 20)
        for start in stride(from: 0, to: bulk.count, by: 256 * 1024) {
            accepted.connection.write(Array(bulk[start..<start + 256 * 1024]))
        }
        #expect(accepted.connection.outboundBufferedBytes > 0, "the test needs bytes left in our queue")
        return (server, client, accepted, bulk)
    }

    @Test func closeFlushesQueuedBytesBeforeClosing() async throws {
        let (_, client, accepted, bulk) = try await queueBulk()
        accepted.connection.close()
        accepted.connection.write([0xFF])  // after close: ignored
        let probe = Probe()
        client.start(probe.handler)
        let received = try await probe.waitForClose()
        #expect(received.bytes.count == bulk.count)
        let intact = received.bytes == bulk
        #expect(intact)
        #expect(received.closes == [nil])
        try await accepted.probe.waitForClose()
        await settle()
        #expect(accepted.probe.received.value.closes == [nil])
    }

    @Test func abortDropsQueuedBytes() async throws {
        let (server, client, accepted, bulk) = try await queueBulk()
        accepted.connection.abort()
        #expect(accepted.connection.outboundBufferedBytes == 0)
        let probe = Probe()
        client.start(probe.handler)
        let received = try await probe.waitForClose()
        #expect(received.bytes.count < bulk.count)
        let prefixIntact = received.bytes[...] == bulk[..<received.bytes.count]
        #expect(prefixIntact)
        try await accepted.probe.waitForClose()
        #expect(accepted.probe.received.value.closes == [nil])
        #expect(server.listener.connectionCount == 0)
    }

    @Test func outboundCapClosesOnlyTheSlowConnection() async throws {
        let limit = 256 * 1024
        let server = try EchoServer(outboundBufferLimit: limit)
        let slow = try await TCPClient.connect(to: server.address)  // never started: never reads
        defer { slow.abort() }
        let slowOnServer = try await server.connection(0)
        let (fast, fastProbe) = try await connectedClient(to: server.address)
        defer { fast.abort() }

        let chunk = pattern(64 * 1024)
        for _ in 0..<1024 where !slowOnServer.probe.received.value.isClosed {
            slowOnServer.connection.write(chunk)
            await Task.yield()
        }
        let received = try await slowOnServer.probe.waitForClose()
        #expect(received.closes == [.outboundBufferFull(limit)])
        #expect(TransportError.outboundBufferFull(limit).description.contains("\(limit) bytes"))

        fast.write(Array("unaffected".utf8))
        try await fastProbe.waitForBytes(10)
        #expect(fastProbe.received.value.bytes == Array("unaffected".utf8))
        #expect(try await server.connection(1).probe.received.value.isClosed == false)
    }

    @Test func connectionOverTheCapIsClosedAtOnceWhileTheOthersWork() async throws {
        let sink = CollectingSink()
        let server = try EchoServer(maxConnections: 3, logger: Logger(label: "test", level: .debug, sink: sink))
        var clients: [(TCPConnection, Probe)] = []
        for _ in 0..<3 { clients.append(try await connectedClient(to: server.address)) }
        defer { for (client, _) in clients { client.abort() } }
        _ = try await server.connection(2)

        let (extra, extraProbe) = try await connectedClient(to: server.address)
        defer { extra.abort() }
        let closed = try await extraProbe.waitForClose()
        #expect(closed.bytes.isEmpty)
        #expect(server.accepted.value.count == 3)
        let warning = sink.records.first { $0.level == .warning && $0.message.contains("connection cap") }
        let peer = warning?.metadata.first { $0.0 == "peer" }?.1
        #expect(peer?.hasPrefix("127.0.0.1:") == true, "the warning names the refused peer")

        for (index, (client, probe)) in clients.enumerated() {
            client.write([UInt8(index)])
            try await probe.waitForBytes(1)
            #expect(probe.received.value.bytes == [UInt8(index)])
        }
    }

    @Test func bindingAPortInUseFailsWithAClearError() throws {
        let server = try EchoServer()
        let error = #expect(throws: TransportError.self) {
            try TCPListener.bind(server.address, logger: .silent)
        }
        guard case .bind(let address, let reason)? = error else {
            Issue.record("expected TransportError.bind, got \(String(describing: error))")
            return
        }
        #expect(address == server.address)
        #expect(reason == "Address already in use")
        #expect(error?.description == "cannot listen on \(server.address): Address already in use")
    }

    @Test func connectingToAClosedPortFailsWithAClearError() async throws {
        let server = try EchoServer()
        let address = server.address
        server.listener.shutdown()
        let error = await #expect(throws: TransportError.self) {
            _ = try await TCPClient.connect(to: address)
        }
        #expect(error == .connect(address, "Connection refused"))
    }
}

/// Issue 10 item 1 and issue 11 item 7: one owner of socket IO, read on demand, and the
/// process-wide outbound budget. Bounds are asserted on queued bytes.
@Suite("Transport back-pressure")
struct TransportBackPressureTests {
    @Test func socketCallsHappenOnlyOnTheReactorThread() async throws {
        let server = try EchoServer()
        let (client, probe) = try await connectedClient(to: server.address)
        // Writers on pool threads and a close from a pool thread: all of it must reach the socket
        // through the reactor.
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask { for _ in 0..<100 { client.write([UInt8](repeating: UInt8(writer), count: 512)) } }
            }
        }
        try await probe.waitForBytes(4 * 100 * 512)
        let accepted = try await server.connection(0)
        await Task.detached { accepted.connection.close() }.value
        try await probe.waitForClose()
        client.abort()
        await settle()
        #expect(EventLoop.socketCallsOffReactor == 0)
    }

    @Test func aPausedConnectionIsNotReadUntilResumed() async throws {
        let server = try EchoServer(echo: false)
        let (client, _) = try await connectedClient(to: server.address)
        defer { client.abort() }
        let accepted = try await server.connection(0)
        accepted.connection.pauseReading()
        await settle()
        let before = accepted.probe.received.value.bytes.count
        let bulk = pattern(2 << 20)
        client.write(bulk)
        // The client's bytes wait in the kernel (TCP's window holds the sender), not in our memory.
        try await client.waitUntilOutboundAtMost(0)
        await settle()
        #expect(accepted.probe.received.value.bytes.count == before)
        accepted.connection.resumeReading()
        try await accepted.probe.waitForBytes(bulk.count)
        #expect(accepted.probe.received.value.bytes == bulk)
    }

    @Test func theProcessWideBudgetClosesTheLargestQueues() async throws {
        let budget = OutboundBudget(limit: 4 << 20)
        let address = try #require(ListenAddress(parsing: "127.0.0.1:0"))
        let listener = try TCPListener.bind(address, outboundBufferLimit: 64 << 20, outboundBudget: budget, logger: .silent)
        defer { listener.shutdown() }
        let accepted = Watched<[(TCPConnection, Probe)]>([])
        listener.start { connection in
            let probe = Probe()
            connection.start(probe.handler)
            accepted.update { $0.append((connection, probe)) }
        }
        var clients: [TCPConnection] = []
        defer { clients.forEach { $0.abort() } }
        for _ in 0..<3 { clients.append(try await TCPClient.connect(to: listener.boundAddress)) }  // never read
        let connections = try await accepted.wait("three accepted") { $0.count == 3 }
        // Far more than the kernel's buffers hold, for each of three cars that never read.
        let chunk = pattern(1 << 20)
        for (connection, _) in connections {
            for _ in 0..<16 { connection.write(chunk) }
        }
        // The reactor sheds on its next turn; wait for the closes it makes.
        for (_, probe) in connections where budget.queuedBytes > budget.limit { _ = try? await probe.waitForClose() }
        await settle()
        #expect(budget.queuedBytes <= budget.limit)
        let closes = connections.flatMap { $0.1.received.value.closes }
        #expect(!closes.isEmpty)
        #expect(closes.allSatisfy { $0 == .outboundBudgetExhausted(budget.limit) })
    }
}

extension TCPConnection {
    /// Waits until at most `threshold` bytes are queued for the peer.
    func waitUntilOutboundAtMost(_ threshold: Int) async throws {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            whenOutboundAtMost(threshold) { continuation.resume() }
        }
    }
}
