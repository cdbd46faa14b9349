import DashportTestSupport
import Synchronization
import Testing
import DashportTransport
import DashportLog
import DashportBrowse
@testable import DashportServer

/// A byte stream that only records what its owner asks of it.
final class FakeStream: ByteStream {
    struct State {
        var paused = false
        var pauses = 0
        var resumes = 0
        var outbound = 0
        var drainWaiters: [(Int, @Sendable () -> Void)] = []
        var handler: (@Sendable (TransportEvent) -> Void)?
        var aborted = false
        var closed = false
    }
    let state = Mutex(State())
    let peerDescription = "fake"
    func start(_ handler: @escaping @Sendable (TransportEvent) -> Void) { state.withLock { $0.handler = handler } }
    func write(_ bytes: [UInt8]) { state.withLock { $0.outbound += bytes.count } }
    func close() { state.withLock { $0.closed = true } }
    func abort() { state.withLock { $0.aborted = true } }
    /// Delivers an event as the reactor would.
    func deliver(_ event: TransportEvent) { state.withLock { $0.handler }?(event) }
    func pauseReading() {
        state.withLock {
            $0.paused = true
            $0.pauses += 1
        }
    }
    func resumeReading() {
        state.withLock {
            $0.paused = false
            $0.resumes += 1
        }
    }
    var outboundBufferedBytes: Int { state.withLock { $0.outbound } }
    func whenOutboundAtMost(_ threshold: Int, _ callback: @escaping @Sendable () -> Void) {
        state.withLock { $0.drainWaiters.append((threshold, callback)) }
    }
    /// The peer took bytes: runs the drain callbacks now satisfied.
    func drain(to count: Int) {
        let ready = state.withLock { state -> [@Sendable () -> Void] in
            state.outbound = count
            let ready = state.drainWaiters.filter { $0.0 >= count }.map(\.1)
            state.drainWaiters.removeAll { $0.0 >= count }
            return ready
        }
        ready.forEach { $0() }
    }
}

@Suite("Car mailbox back-pressure")
struct CarMailboxTests {
    @Test func aFloodingCarIsPausedNotBuffered() async {
        let stream = FakeStream()
        let mailbox = CarMailbox(stream: stream)
        let chunk = [UInt8](repeating: 0, count: 16 * 1024)
        // The reactor delivers until the mailbox says stop; a paused transport delivers nothing more.
        var delivered = 0
        while !stream.state.withLock({ $0.paused }) {
            mailbox.yield(.transport(.received(chunk)))
            delivered += chunk.count
            #expect(delivered <= 1 << 20, "the mailbox never paused the transport")
            if delivered > 1 << 20 { return }
        }
        #expect(mailbox.queuedInboundBytes == CarMailbox.inboundHighWater)
        #expect(mailbox.isReadingPaused)
        // The worker catches up: reading resumes once the backlog is down to the low-water mark.
        var taken = 0
        while stream.state.withLock({ $0.paused }) {
            guard case .transport(.received(let bytes)) = await mailbox.next() else {
                Issue.record("expected bytes")
                return
            }
            taken += bytes.count
        }
        #expect(mailbox.queuedInboundBytes <= CarMailbox.inboundLowWater)
        #expect(stream.state.withLock { ($0.pauses, $0.resumes) } == (1, 1))
        #expect(taken + mailbox.queuedInboundBytes == delivered)
    }

    @Test func deadlinesAndShutdownOvertakeTheBacklog() async {
        let mailbox = CarMailbox(stream: FakeStream())
        for _ in 0..<8 { mailbox.yield(.transport(.received([1, 2, 3]))) }
        mailbox.yield(.tick)
        mailbox.yield(.shutdown)
        guard case .shutdown = await mailbox.next() else {
            Issue.record("shutdown first")
            return
        }
        guard case .tick = await mailbox.next() else {
            Issue.record("then the tick")
            return
        }
        guard case .transport(.received) = await mailbox.next() else {
            Issue.record("then bytes")
            return
        }
    }

    @Test func aCarThatDoesNotReadStopsItsOwnProducerUntilItsQueueDrains() async {
        let stream = FakeStream()
        let mailbox = CarMailbox(stream: stream)
        stream.write([UInt8](repeating: 0, count: CarMailbox.outboundHighWater + 1))
        mailbox.pauseForOutbound()
        mailbox.yield(.transport(.received([1])))
        mailbox.yield(.transport(.closed(nil)))
        mailbox.yield(.tick)
        // Only the tick is taken while output is paused: no request is read, so nothing more is produced.
        guard case .tick = await mailbox.next() else {
            Issue.record("the tick still comes")
            return
        }
        #expect(mailbox.isPausedForOutbound)
        #expect(mailbox.queuedInboundBytes == 1)
        stream.drain(to: CarMailbox.outboundLowWater)
        #expect(!mailbox.isPausedForOutbound)
        guard case .transport(.received([1])) = await mailbox.next() else {
            Issue.record("bytes after the drain")
            return
        }
        guard case .transport(.closed(nil)) = await mailbox.next() else {
            Issue.record("the close last")
            return
        }
    }

    /// A car that never reads: once more than the high-water mark is queued for it, the server
    /// stops serving it and closes it after the write-stall limit.
    @Test func aCarThatNeverReadsIsClosedAfterTheStallLimit() async throws {
        try await TestServer.with { server in
            var context = server.server.context
            context.writeStallLimit = .milliseconds(200)
            let stream = FakeStream()
            stream.write([UInt8](repeating: 0, count: CarMailbox.outboundHighWater + 1))  // never drains
            let connection = Task { [context] in await CarConnection(stream: stream, context: context).run() }
            try await eventually("the connection to start its stream") { stream.state.withLock { $0.handler != nil } }
            stream.deliver(.received(FloodOverTCPTests.versionRequest))
            await connection.value  // returns once the connection gave up on the car
            #expect(stream.state.withLock { $0.aborted })
            #expect(server.log.contains(.warning, "unread for"))
            #expect(stream.state.withLock { $0.drainWaiters.count } == 1, "paused for output, waiting for a drain")
        }
    }

    @Test func pushesForACarThatDoesNotKeepUpAreBoundedAndCloseIt() async {
        let stream = FakeStream()
        let mailbox = CarMailbox(stream: stream)
        stream.write([UInt8](repeating: 0, count: CarMailbox.outboundHighWater + 1))
        mailbox.pauseForOutbound()
        for _ in 0...CarMailbox.maxPendingServiceInputs {
            mailbox.yield(
                .services(ServiceInput(channel: 16, HostedMediaChannel.Input.browseNotification(.childrenChanged(parentId: nil)))))
        }
        guard case .overflow = await mailbox.next() else {
            Issue.record("expected the overflow")
            return
        }
        mailbox.yield(.services(ServiceInput(channel: 16, HostedMediaChannel.Input.browseNotification(.childrenChanged(parentId: nil)))))  // after: dropped
    }

    /// A burst of core inputs is held while it waits; once the worker has taken it all the inbox
    /// keeps no room for the next one, and takes a new burst as before (issue 10).
    @Test func theRoomForCoreInputsIsReleasedWhenTheyAreTakenAndGrowsAgain() async {
        let mailbox = CarMailbox(stream: FakeStream())
        #expect(mailbox.reservedServiceInputs == 0)
        for round in 0..<2 {
            for index in 0..<20 {
                mailbox.yield(
                    .services(
                        ServiceInput(
                            channel: 16, HostedMediaChannel.Input.browseNotification(.childrenChanged(parentId: "\(round)-\(index)")))))
            }
            #expect(mailbox.reservedServiceInputs >= 20)
            for index in 0..<20 {
                guard case .services(let input) = await mailbox.next(),
                    case .browseNotification(.childrenChanged(let parent))? = input.payload as? HostedMediaChannel.Input
                else {
                    Issue.record("expected notification \(index)")
                    return
                }
                #expect(parent == "\(round)-\(index)")
            }
            #expect(mailbox.reservedServiceInputs == 0)
        }
    }
}
