import DashportTestSupport
import DashportClock
import Testing
@testable import DashportSession

@Suite struct ValidationTests {
    struct Invalid: Sendable, CustomTestStringConvertible {
        var name: String
        var expected: SessionStateError
        var change: @Sendable (inout SessionSnapshot) -> Void
        var testDescription: String { name }
    }

    static let invalid: [Invalid] = [
        Invalid(name: "negative position", expected: .negativePosition(-1)) { $0.playbackState.position.valueMs = -1 },
        Invalid(name: "negative buffered position", expected: .negativeBufferedPosition(-5)) { $0.playbackState.bufferedPositionMs = -5 },
        Invalid(name: "infinite rate", expected: .invalidRate(.infinity)) { $0.playbackState.position.rate = .infinity },
        Invalid(name: "negative rate", expected: .invalidRate(-1)) { $0.playbackState.position.rate = -1 },
        Invalid(name: "rate above the maximum", expected: .invalidRate(17)) { $0.playbackState.position.rate = 17 },
        Invalid(name: "queue index past the end", expected: .queueIndexOutOfRange(index: 3, count: 3)) { $0.playbackState.queueIndex = 3 },
        Invalid(name: "negative queue index", expected: .queueIndexOutOfRange(index: -1, count: 3)) { $0.playbackState.queueIndex = -1 },
        Invalid(name: "new shorter queue, old index", expected: .queueIndexOutOfRange(index: 2, count: 1)) {
            $0.playbackState.queueIndex = 2
            $0.queue = queue(["x"])
        },
        Invalid(name: "control without capability", expected: .controlWithoutCapability(.skipToNext)) {
            $0.playbackState.capabilities = [.play, .pause]
            $0.playbackState.controls = [.pause, .skipToNext]
        },
        Invalid(name: "custom actions without capability", expected: .customActionsWithoutCapability) {
            $0.playbackState.capabilities.remove(.customAction)
            $0.playbackState.customActions = [CustomAction(name: "like", label: "Like")]
        },
        Invalid(name: "duplicate custom action", expected: .invalidCustomAction(name: "like")) {
            $0.playbackState.customActions = [CustomAction(name: "like", label: "Like"), CustomAction(name: "like", label: "Again")]
        },
        Invalid(name: "empty custom action name", expected: .invalidCustomAction(name: "")) {
            $0.playbackState.customActions = [CustomAction(name: "", label: "Nameless")]
        },
        Invalid(name: "too many custom actions", expected: .tooManyCustomActions(count: 17, limit: 16)) {
            $0.playbackState.customActions = (0..<17).map { CustomAction(name: "a\($0)", label: "A") }
        },
        Invalid(name: "empty queue entry id", expected: .emptyItemId(index: 1)) { $0.queue.items[1].id = "" },
        Invalid(name: "empty media item id", expected: .emptyItemId(index: nil)) {
            $0.playbackState.queueIndex = nil
            $0.mediaItem = MediaItemState(item: MediaItem(id: ""))
        },
        Invalid(name: "negative duration", expected: .negativeDuration(id: "b", durationMs: -1)) { $0.queue.items[1].durationMs = -1 },
        Invalid(name: "queue too long", expected: .queueTooLong(count: 1001, limit: 1000)) {
            $0.queue = queue((0...1000).map { "q\($0)" })
        },
        Invalid(name: "title too long", expected: .textTooLong(field: "title", bytes: 4097, limit: 4096)) {
            $0.queue.items[2].title = String(repeating: "x", count: 4097)
        },
        Invalid(name: "id too long", expected: .textTooLong(field: "media id", bytes: 1025, limit: 1024)) {
            $0.queue.items[2].id = String(repeating: "i", count: 1025)
        },
    ]

    /// A core with a valid session: queue a, b, c; playing a from 0 at t=0; every capability.
    static func makeCore() async throws -> (SessionCore, SessionSnapshot) {
        let clock = ManualClock()
        let core = SessionCore(handler: RecordingHandler(), clock: clock, configuration: testConfiguration)
        var state = await core.playbackState
        state.status = .playing
        state.queueIndex = 0
        state.controls = [.pause, .skipToNext]
        try await core.broadcaster.update(queue: queue(["a", "b", "c"]), playbackState: state)
        return (core, await core.snapshot)
    }

    @Test(arguments: invalid)
    func aRefusedBroadcastThrowsAndChangesNothing(_ invalid: Invalid) async throws {
        let (core, before) = try await Self.makeCore()
        let updates = await core.subscribe()
        var candidate = before
        invalid.change(&candidate)
        await #expect(throws: invalid.expected) {
            try await core.broadcaster.update(
                queue: candidate.queue, mediaItem: candidate.mediaItem, playbackState: candidate.playbackState)
        }
        #expect(await core.snapshot == before)
        // Nothing was broadcast: after the three current values comes the next valid change.
        var marker = before.playbackState
        marker.status = .paused
        try await core.broadcaster.setPlaybackState(marker)
        let seen = await first(4, of: updates)
        #expect(seen.dropFirst(3).first == .playbackState(marker))
    }

    @Test func nanRateIsRefused() async throws {
        let (core, before) = try await Self.makeCore()
        var state = before.playbackState
        state.position.rate = .nan
        do {
            try await core.broadcaster.setPlaybackState(state)
            Issue.record("a NaN rate was accepted")
        } catch {
            guard case .invalidRate(let rate) = error else { throw error }
            #expect(rate.isNaN)
        }
        #expect(await core.snapshot == before)
    }

    @Test func errorsSayWhatIsWrong() {
        #expect(SessionStateError.queueIndexOutOfRange(index: 4, count: 2).description == "queue index 4 is outside a queue of 2")
        #expect(SessionStateError.controlWithoutCapability(.seekTo).description.contains("seekTo"))
        #expect(SessionStateError.invalidRate(.infinity).description.contains("inf"))
    }

    @Test func aMatchingMediaItemIsMergedOverTheQueueEntry() async throws {
        let (core, _) = try await Self.makeCore()
        let updates = await core.subscribe()
        try await core.broadcaster.setMediaItem(MediaItemState(item: MediaItem(id: "a", title: "Live A", durationMs: 5000)))
        let item = try #require(await core.mediaItem.item)
        #expect(item == MediaItem(id: "a", title: "Live A", artist: "Artist a", durationMs: 5000))
        await core.close()
        #expect(!(await drain(updates)).contains { $0.error != nil })
    }

    @Test func aMismatchedMediaItemLosesToTheQueueEntryAndIsReported() async throws {
        let (core, before) = try await Self.makeCore()
        let updates = await core.subscribe()
        try await core.broadcaster.setMediaItem(MediaItemState(item: MediaItem(id: "zzz", title: "Other")))
        #expect(await core.mediaItem == before.mediaItem)
        #expect(await core.mediaItem.item?.title == "A")
        await core.close()
        let errors = await drain(updates).compactMap(\.error)
        #expect(errors.map(\.code) == [.metadataMismatch])
        #expect(errors.first?.severity == .degraded)
    }

    @Test func withoutAQueueIndexTheMediaItemStandsAlone() async throws {
        let core = SessionCore(handler: RecordingHandler(), clock: ManualClock())
        let stream = MediaItem(id: "stream", title: "Radio")
        try await core.broadcaster.setMediaItem(MediaItemState(item: stream))
        #expect(await core.mediaItem.item == stream)
    }

    @Test func movingTheQueueIndexBringsTheEntryAsTheMediaItem() async throws {
        let (core, before) = try await Self.makeCore()
        var state = before.playbackState
        state.queueIndex = 2
        try await core.broadcaster.setPlaybackState(state)
        #expect(await core.mediaItem.item?.id == "c")
    }

    @Test func duplicateIdsAreAllowedInTheQueue() async throws {
        let (core, before) = try await Self.makeCore()
        var state = before.playbackState
        state.queueIndex = 2
        try await core.broadcaster.update(queue: queue(["a", "b", "a"]), playbackState: state)
        #expect(await core.queue.items.map(\.id) == ["a", "b", "a"])
    }

    @Test func aStateOnTheProjectionIsNotADiscontinuity() async throws {
        let clock = ManualClock()
        let core = SessionCore(handler: RecordingHandler(), clock: clock, configuration: testConfiguration)
        var state = await core.playbackState
        state.status = .playing
        try await core.broadcaster.setPlaybackState(state)
        let updates = await core.subscribe()
        await clock.advance(by: .seconds(5))
        var same = state
        same.position = PositionAnchor(valueMs: 5000, at: clock.now)
        try await core.broadcaster.setPlaybackState(same)  // continuous: not broadcast
        #expect(await core.playbackState == state)
        var seek = state
        seek.position = PositionAnchor(valueMs: 9000, at: clock.now)
        try await core.broadcaster.setPlaybackState(seek)  // a seek: broadcast
        let seen = await first(4, of: updates)
        #expect(seen.dropFirst(3).first == .playbackState(seek))
        #expect(await core.projectedPositionMs(at: clock.now.advanced(byMs: 1000)) == 10_000)
    }
}
