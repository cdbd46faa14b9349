import DashportTestSupport
import DashportClock
import DashportMessages
import DashportSession
import Testing
@testable import DashportServices

/// Issue 21, item 4: on a track change a stock head unit gets the new item's metadata before (or
/// with) the status that starts it, and the cover with that first metadata when it comes within
/// the budget. Driven by a real SessionCore (demo handler) on the manual clock.
@Suite("AAP playback status: metadata before status")
struct AAPPlaybackOrderTests {
    let clock = ManualClock()
    let core: SessionCore
    let cover: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 7, 0xFF, 0xD9]

    init() {
        core = SessionCore(handler: DemoPlaybackHandler(library: AAPTestLibrary(), clock: clock, shuffleSeed: 1), clock: clock)
    }

    var now: Duration { .milliseconds(clock.now.milliseconds) }

    /// A started service and a reader with nothing pending.
    func opened() async -> (AAPPlaybackStatusService, UpdateReader) {
        let reader = await UpdateReader(core: core)
        _ = await reader.drain()
        var service = AAPPlaybackStatusService(channel: 13, car: "car-1")
        _ = service.start(snapshot: await core.snapshot, now: now)
        return (service, reader)
    }

    func feed(_ reader: UpdateReader, _ service: inout AAPPlaybackStatusService) async -> [AAPPlaybackStatusService.Action] {
        var actions: [AAPPlaybackStatusService.Action] = []
        for update in await reader.drain() { actions += service.sessionUpdated(update, now: now) }
        return actions
    }

    /// What went to the car, in order: "status <state>" or "metadata <song> [art]".
    static func wire(_ actions: [AAPPlaybackStatusService.Action]) throws -> [String] {
        try actions.compactMap(\.outgoing).map { message in
            if message.messageId == statusId {
                let state = try AAP.MediaPlaybackStatus(serializedBytes: message.body).state
                return "status " + (state.map { "\($0)" } ?? "-")
            }
            let metadata = try AAP.MediaPlaybackMetadata(serializedBytes: message.body)
            return "metadata " + (metadata.song ?? "-") + (metadata.albumArt == nil ? "" : " art")
        }
    }

    /// The cover comes within the budget: one metadata, with the cover, then PLAYING.
    @Test func aCoverWithinTheBudgetGoesWithTheFirstMetadataAndPlayingFollows() async throws {
        var (service, reader) = await opened()
        #expect(await core.perform(.playFromMediaId("t1"), from: .local) == .accepted)
        var sent = await feed(reader, &service)
        #expect(try Self.wire(sent).isEmpty)  // PLAYING waits for the metadata
        #expect(fetches(in: sent).map(\.itemId) == ["t1"])
        #expect(service.nextDeadline == now + .milliseconds(300))

        await clock.advance(by: .milliseconds(120))
        sent = service.artworkArrived(itemId: "t1", bytes: cover)
        let deadline = try #require(service.nextDeadline)
        #expect(deadline <= now)  // the owed status is due at once
        sent += service.tick(now: now)
        #expect(try Self.wire(sent) == ["metadata One art", "status playing"])

        // Nothing more until the periodic status: no second metadata.
        await clock.advance(by: .seconds(1))
        #expect(try Self.wire(service.tick(now: now)) == ["status playing"])
    }

    /// The cover misses the budget: metadata without it and PLAYING at the budget, then the
    /// cover in one metadata update.
    @Test func aCoverLaterThanTheBudgetFollowsInAnUpdate() async throws {
        var (service, reader) = await opened()
        #expect(await core.perform(.playFromMediaId("t1"), from: .local) == .accepted)
        #expect(try Self.wire(await feed(reader, &service)).isEmpty)

        await clock.advance(by: .milliseconds(299))
        #expect(try Self.wire(service.tick(now: now)).isEmpty)
        await clock.advance(by: .milliseconds(1))
        #expect(try Self.wire(service.tick(now: now)) == ["metadata One", "status playing"])

        await clock.advance(by: .milliseconds(200))
        #expect(try Self.wire(service.artworkArrived(itemId: "t1", bytes: cover)) == ["metadata One art"])
        #expect(try Self.wire(service.tick(now: now)).isEmpty)
    }

    /// A track change to an item that shares the cover already fetched: metadata with art at once,
    /// before the status of the new track; an item without a cover likewise goes first.
    @Test func aKnownCoverOrNoCoverSendsMetadataFirst() async throws {
        var (service, reader) = await opened()
        #expect(await core.perform(.playFromMediaId("t1"), from: .local) == .accepted)
        _ = await feed(reader, &service)
        _ = service.artworkArrived(itemId: "t1", bytes: cover)
        _ = service.tick(now: now)

        await clock.advance(by: .seconds(2))
        _ = service.tick(now: now)
        #expect(await core.perform(.skipToQueueItem(2), from: .local) == .accepted)  // t3: the same cover
        #expect(try Self.wire(await feed(reader, &service)) == ["metadata Three art", "status playing"])

        await clock.advance(by: .seconds(2))
        _ = service.tick(now: now)
        #expect(await core.perform(.skipToPrevious, from: .local) == .accepted)  // t2: no cover
        #expect(try Self.wire(await feed(reader, &service) + service.tick(now: now)) == ["metadata Two", "status playing"])
    }

    /// A pause while the metadata waits for the cover is held too: the car sees the new title
    /// first, then PAUSED.
    @Test func aPauseWhileTheCoverIsFetchedFollowsTheMetadata() async throws {
        var (service, reader) = await opened()
        #expect(await core.perform(.playFromMediaId("t1"), from: .local) == .accepted)
        _ = await feed(reader, &service)
        await clock.advance(by: .milliseconds(50))
        #expect(await core.perform(.pause, from: .local) == .accepted)
        #expect(try Self.wire(await feed(reader, &service)).isEmpty)
        let sent = service.artworkArrived(itemId: "t1", bytes: cover) + service.tick(now: now)
        #expect(try Self.wire(sent) == ["metadata One art", "status paused"])
    }
}
