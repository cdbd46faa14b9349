import DashportTestSupport
import DashportClock
import DashportBrowse
import DashportMessages
import DashportSession
import Testing
@testable import DashportServices

/// Both AAP services driven by a real SessionCore (demo handler, manual clock), the way the
/// connection driver will: session updates in order, ticks at the deadline, commands performed.
@Suite("AAP services against a real session core")
struct AAPSessionDrivenTests {
    let clock = ManualClock()
    let core: SessionCore

    init() {
        core = SessionCore(handler: DemoPlaybackHandler(library: AAPTestLibrary(), clock: clock, shuffleSeed: 1), clock: clock)
    }

    /// Link time on the session clock's time line (origin zero).
    var now: Duration { .milliseconds(clock.now.milliseconds) }

    /// Feeds every pending update to the service and returns what it did.
    func feed(_ reader: UpdateReader, _ service: inout AAPPlaybackStatusService) async -> [AAPPlaybackStatusService.Action] {
        var actions: [AAPPlaybackStatusService.Action] = []
        for update in await reader.drain() { actions += service.sessionUpdated(update, now: now) }
        return actions
    }

    /// Play, a key press for next, a pause: each gives the car one status, and item changes give
    /// it metadata (with the cover once the fetch is answered); the position ticks once a second.
    @Test func playNextPause() async throws {
        let reader = await UpdateReader(core: core)
        var status = AAPPlaybackStatusService(channel: 13, car: "car-1")
        var input = AAPInputService(channel: 8, car: "car-1", carKeyCodes: [85, 87, 88])
        _ = await reader.drain()
        let opened = status.start(snapshot: await core.snapshot, now: now)
        #expect(try statuses(in: opened, channel: 13) == [expectedStatus(.stopped, seconds: 0)])
        #expect(try AAP.KeyBindingRequest(serializedBytes: try #require(input.start().first?.outgoing).body).keycodes == [85, 87, 88])

        // Play the album: metadata waits for the cache's answer on the cover, and the status
        // (playing, 0 s) waits with it, then follows it.
        #expect(await core.perform(.playFromMediaId("t1"), from: .local) == .accepted)
        let play = await feed(reader, &status)
        #expect(try statuses(in: play, channel: 13).isEmpty)
        #expect(fetches(in: play).map(\.itemId) == ["t1"])
        let answered = status.artworkArrived(itemId: "t1", bytes: [1, 2, 3])
        #expect(try AAPPlaybackMetadataTests.wire(answered) == ["metadata One art", "status playing"])
        #expect(try statuses(in: answered, channel: 13) == [expectedStatus(.playing, seconds: 0)])
        let withCover = try metadata(in: answered, channel: 13)
        #expect(
            withCover == [AAP.MediaPlaybackMetadata(song: "One", artist: "Band", album: "LP", albumArt: [1, 2, 3], durationSeconds: 100)])

        // Three seconds at the deadlines: one status a second.
        var seconds: [UInt32?] = []
        for _ in 0..<3 {
            let deadline = try #require(status.nextDeadline)
            await clock.advance(by: deadline - now)
            seconds += try statuses(in: await feed(reader, &status) + status.tick(now: now), channel: 13).map(\.playbackSeconds)
        }
        #expect(seconds == [1, 2, 3])

        // The car's next key: one command; performed, it gives one status and the new metadata.
        let keyActions = input.receive(messageId: inputReportId, body: keyReport([key(87, down: true)]), now: now)
        #expect(keyActions == [.command(.skipToNext, .aapKey(car: "car-1"))])
        #expect(input.receive(messageId: inputReportId, body: keyReport([key(87, down: false)]), now: now).isEmpty)
        #expect(await core.perform(.skipToNext, from: .aapKey(car: "car-1")) == .accepted)
        let next = await feed(reader, &status)
        #expect(try statuses(in: next, channel: 13) == [expectedStatus(.playing, seconds: 0)])
        #expect(
            try metadata(in: next, channel: 13) == [
                AAP.MediaPlaybackMetadata(
                    song: "Two", artist: "Band", album: "LP", durationSeconds: 100 * 2)
            ])
        #expect(status.nextDeadline == now + .seconds(1))

        // Pause: one status, then silence.
        await clock.advance(by: .milliseconds(1_500))
        _ = status.tick(now: now)
        #expect(await core.perform(.pause, from: .local) == .accepted)
        let pause = await feed(reader, &status)
        #expect(try statuses(in: pause, channel: 13) == [expectedStatus(.paused, seconds: 1)])
        #expect(status.nextDeadline == nil)
    }

    /// A track that ends on its own: the next item's metadata (cover shared with the first track,
    /// so no new fetch) and one status at 0 s.
    @Test func trackEndAdvances() async throws {
        let reader = await UpdateReader(core: core)
        var status = AAPPlaybackStatusService(channel: 13, car: "car-1")
        _ = await reader.drain()
        _ = status.start(snapshot: await core.snapshot, now: now)
        #expect(await core.perform(.playFromMediaId("t3"), from: .local) == .accepted)
        _ = await feed(reader, &status)
        _ = status.artworkArrived(itemId: "t3", bytes: [7])
        #expect(await core.perform(.skipToQueueItem(0), from: .local) == .accepted)
        let first = await feed(reader, &status)
        #expect(fetches(in: first).isEmpty)
        #expect(try metadata(in: first, channel: 13).map(\.albumArt) == [[7]])

        await clock.advance(by: .seconds(100))
        let ended = await feed(reader, &status)
        #expect(try metadata(in: ended, channel: 13).map(\.song) == ["Two"])
        #expect(try statuses(in: ended, channel: 13) == [expectedStatus(.playing, seconds: 0)])
    }
}
