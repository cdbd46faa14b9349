@testable import DashportBrowse
@testable import DashportSession
import DashportTestSupport
import Testing
@testable import DashportServer

/// What a linked car holds in the shared core (issue 10, private memory per car): its services'
/// subscriptions to the session and the browse core are handlers the cores call, not a task per
/// subscription waiting on a stream, and they end when the car leaves.
@Suite("Per-car footprint", .serialized)
struct PerCarFootprintTests {
    @Test func aLinkedCarsSubscriptionsAreHandlersThatEndWhenItLeaves() async throws {
        try await TestServer.with { server in
            let session = server.server.core.session
            let browse = server.server.core.browse
            let sessionBefore = await session.handlerSubscriberCount
            let browseBefore = await browse.handlerSubscriberCount
            let streamsBefore = await session.subscriberCount - sessionBefore

            let car = try await TestCar.connect(to: server.server.address)
            try await car.waitUntil("channels open and the media hello") {
                $0.openedChannels.count == 5 && !$0.messages(on: 16).isEmpty
            }
            // Playback status, input (remote playback), the media channel and the audio sink (play
            // state) each subscribe once; the media channel also to the browse core's notifications.
            try await eventually("four session and one browse handler") {
                let sessionNow = await session.handlerSubscriberCount
                let browseNow = await browse.handlerSubscriberCount
                return sessionNow == sessionBefore + 4 && browseNow == browseBefore + 1
            }

            // No stream (which would need a task per subscription to wait on it) was added.
            let streamsNow = await session.subscriberCount - session.handlerSubscriberCount
            #expect(streamsNow == streamsBefore)

            await car.abort()
            try await eventually("the car's subscriptions ended") {
                let sessionNow = await session.handlerSubscriberCount
                let browseNow = await browse.handlerSubscriberCount
                return sessionNow == sessionBefore && browseNow == browseBefore
            }
        }
    }
}
