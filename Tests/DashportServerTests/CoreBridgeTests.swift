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
