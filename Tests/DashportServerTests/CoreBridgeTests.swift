import DashportBrowse
import DashportClock
import DashportSession
import DashportTestSupport
import Synchronization
import Testing
@testable import DashportServer

/// Records the seeks it performs, in order; each waits a turn so a later one could overtake it.
private actor SeekRecorder: SessionHandler {
    private(set) var seeks: [Int64] = []
    nonisolated var initialCapabilities: Set<SessionCapability> { [.seekTo] }
    nonisolated func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] { [] }
    nonisolated func item(id: String) async throws -> BrowseItem? { nil }
    func seekTo(_ positionMs: Int64, session: SessionBroadcaster) async throws {
        await Task.yield()
        seeks.append(positionMs)
    }
}

/// The core bridge holds no task for a car that is idle (issue 10): commands are run by a task
/// that exists only while some are queued, and pushes arrive through handlers.
@Suite("Core bridge")
struct CoreBridgeTests {
    @Test func commandsRunInOrderByATaskThatEndsWhenTheQueueIsEmpty() async throws {
        let handler = SeekRecorder()
        let session = SessionCore(handler: handler, clock: ManualClock())
        let mailbox = CarMailbox(stream: FakeStream())
        let bridge = CoreBridge(inputs: mailbox)
        #expect(bridge.pendingCount == 0)
        for round in 0..<2 {
            for position in 1...5 {
                bridge.perform(.seekTo(ms: Int64(round * 10 + position)), from: .local, on: session) {
                    ServiceInput(channel: 8, HostedInput.Input.commandFinished(.seekTo(ms: Int64(round * 10 + position)), $0))
                }
            }
            var answered: [Int64] = []
            while answered.count < 5 {
                guard case .services(let input) = await mailbox.next(),
                    case .commandFinished(.seekTo(let ms), .accepted)? = input.payload as? HostedInput.Input
                else {
                    Issue.record("not an accepted seek")
                    return
                }
                answered.append(ms)
            }
            let expected = (1...5).map { Int64(round * 10 + $0) }
            #expect(answered == expected)
            // The queue is empty: the task that ran it ends, and the next command starts another.
            try await eventually("no task left") { bridge.pendingCount == 0 }
        }
        #expect(await handler.seeks == [1, 2, 3, 4, 5, 11, 12, 13, 14, 15])
        bridge.stop()
    }

    /// A car's bridge whose push subscription to a fresh session posts into the car's mailbox.
    static func bridgeSubscribedToASession() -> (SessionCore, CarMailbox, CoreBridge) {
        let session = SessionCore(handler: SeekRecorder(), clock: ManualClock())
        let mailbox = CarMailbox(stream: FakeStream())
        let bridge = CoreBridge(inputs: mailbox)
        bridge.attach { post in
            let id = await session.subscribe { post(ServiceInput(channel: 13, HostedPlaybackStatus.Input.session($0))) }
            return { await session.unsubscribe(id) }
        }
        return (session, mailbox, bridge)
    }

    @Test func aPushSubscriptionPostsWithoutATaskAndEndsAtStop() async throws {
        let (session, mailbox, bridge) = Self.bridgeSubscribedToASession()
        var replay: [SessionUpdate] = []
        while replay.count < 3 {
            guard case .services(let input) = await mailbox.next(),
                case .session(let update)? = input.payload as? HostedPlaybackStatus.Input
            else {
                Issue.record("not a session update")
                return
            }
            replay.append(update)
        }
        let snapshot = await session.snapshot
        #expect(replay == [.queue(snapshot.queue), .mediaItem(snapshot.mediaItem), .playbackState(snapshot.playbackState)])
        try await eventually("subscribed, and the task that did it gone") {
            await session.subscriberCount == 1 && bridge.pendingCount == 0
        }
        bridge.stop()
        try await eventually("unsubscribed at stop") { await session.subscriberCount == 0 }
    }

    @Test func aHandlerOfAFinishedCarIsDroppedByTheCoreItself() async throws {
        let (session, mailbox, bridge) = Self.bridgeSubscribedToASession()
        try await eventually("subscribed") { await session.subscriberCount == 1 }
        mailbox.finish()
        // The next push finds the car gone and drops its handler, with no stop() needed.
        await session.report(SessionError(code: .artworkFailed, severity: .degraded, message: "a cover failed"))
        #expect(await session.subscriberCount == 0)
        bridge.stop()  // the bridge lives (and is stopped) only after the core dropped the handler
    }
}

/// Opens on demand: a request waits on it until the test lets it finish.
private final class Gate: Sendable {
    private let state = Mutex<(started: Int, open: Bool, waiters: [CheckedContinuation<Void, Never>])>((0, false, []))
    var started: Int { state.withLock { $0.started } }
    func pass() async {
        await withCheckedContinuation { continuation in
            let go = state.withLock { state -> Bool in
                state.started += 1
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if go { continuation.resume() }
        }
    }
    /// Lets the request that has waited longest go on.
    func releaseOldest() {
        let waiter = state.withLock { state in state.waiters.isEmpty ? nil : state.waiters.removeFirst() }
        waiter?.resume()
    }
    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }
}

/// Issue 23 item 4: one car's pile of requests runs at most `maxConcurrentRequests` at a time,
/// the rest in order behind them, so it competes with another car's one request as 4 to 1.
@Suite struct CoreBridgeFairnessTests {
    @Test func aCarsRequestsBeyondItsShareWaitInOrder() async throws {
        let mailbox = CarMailbox(stream: FakeStream())
        let bridge = CoreBridge(inputs: mailbox)
        let gate = Gate()
        let order = Mutex<[Int]>([])
        for number in 0..<32 {
            bridge.request {
                order.withLock { $0.append(number) }
                await gate.pass()
                return ServiceInput(channel: 9, number)
            }
        }
        try await eventually("the first requests started") { gate.started == CoreBridge.maxConcurrentRequests }
        #expect(bridge.waitingRequests == 32 - CoreBridge.maxConcurrentRequests)
        #expect(bridge.pendingCount == CoreBridge.maxConcurrentRequests)
        // One place freed at a time, the next freed only once the request that took it started: two
        // requests started at once run on the pool in either order, which says nothing of the queue.
        for released in 0..<32 {
            let expected = min(32, CoreBridge.maxConcurrentRequests + released)
            try await eventually("\(expected) requests started") { gate.started == expected }
            gate.releaseOldest()
        }
        var answered: [Int] = []
        while answered.count < 32 {
            guard case .services(let input) = await mailbox.next(), let number = input.payload as? Int else { continue }
            answered.append(number)
        }
        #expect(Set(answered) == Set(0..<32))
        // The waiting ones (4 onwards) started one by one, oldest first.
        #expect(Array(order.withLock { $0 }.dropFirst(4)) == Array(4..<32))
        #expect(bridge.waitingRequests == 0)
        try await eventually("no task left") { bridge.pendingCount == 0 }
        bridge.stop()
    }
}
