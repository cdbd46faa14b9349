import DashportTestSupport
import DashportClock
import DashportBrowse
import Testing
@testable import DashportSession

@Suite struct DemoPlaybackHandlerTests {
    static func playing(_ id: String, library: TestLibrary = .standard, seed: UInt64 = 42) async -> (SessionCore, ManualClock) {
        let clock = ManualClock()
        let core = makeDemoCore(clock: clock, library: library, seed: seed)
        let result = await core.perform(.playFromMediaId(id), from: .local)
        #expect(result == .accepted)
        return (core, clock)
    }

    static func position(_ core: SessionCore, _ clock: ManualClock) async -> Int64 {
        await core.projectedPositionMs(at: clock.now)
    }

    @Test func playPauseSeekAndRateMoveThePosition() async {
        let (core, clock) = await Self.playing("a3")
        await clock.advance(by: .seconds(10))
        #expect(await Self.position(core, clock) == 10_000)
        _ = await core.perform(.pause, from: .local)
        await clock.advance(by: .seconds(10))
        #expect(await Self.position(core, clock) == 10_000)
        #expect(await core.playbackState.controls.contains(.play))
        _ = await core.perform(.play, from: .local)
        await clock.advance(by: .seconds(5))
        #expect(await Self.position(core, clock) == 15_000)
        #expect(await core.playbackState.controls.contains(.pause))
        _ = await core.perform(.seekTo(ms: 50_000), from: .local)
        _ = await core.perform(.setRate(2), from: .local)
        await clock.advance(by: .seconds(10))
        #expect(await Self.position(core, clock) == 70_000)
        _ = await core.perform(.stop, from: .local)
        #expect(await core.playbackState.status == .stopped)
        #expect(await Self.position(core, clock) == 0)
    }

    @Test func theEndOfATrackAdvancesTheQueue() async {
        let (core, clock) = await Self.playing("a1")
        await clock.advance(by: .milliseconds(99_999))
        #expect(await core.playbackState.queueIndex == 0)
        await clock.advance(by: .milliseconds(1))
        let state = await core.playbackState
        #expect(state.queueIndex == 1)
        #expect(state.status == .playing)
        #expect(state.position == PositionAnchor(valueMs: 0, at: ClockInstant(milliseconds: 100_000)))
        #expect(await core.mediaItem.item?.id == "a2")
    }

    @Test func aFasterRateEndsTheTrackSooner() async {
        let (core, clock) = await Self.playing("a1")
        _ = await core.perform(.setRate(2), from: .local)
        await clock.advance(by: .seconds(50))
        #expect(await core.playbackState.queueIndex == 1)
    }

    @Test func playbackStopsAtTheEndOfTheQueue() async {
        let (core, clock) = await Self.playing("a3")
        await clock.advance(by: .seconds(300))
        let state = await core.playbackState
        #expect(state.status == .stopped)
        #expect(state.queueIndex == 2)
        #expect(await Self.position(core, clock) == 300_000)
        #expect(clock.pendingTimerCount == 0)
        _ = await core.perform(.play, from: .local)  // replays the finished item from the start
        #expect(await core.playbackState.status == .playing)
        #expect(await Self.position(core, clock) == 0)
    }

    @Test func repeatOneReplaysTheItem() async {
        let (core, clock) = await Self.playing("a1")
        _ = await core.perform(.setRepeatMode(.one), from: .local)
        for lap in 1...3 {
            await clock.advance(by: .seconds(100))
            let state = await core.playbackState
            #expect(state.queueIndex == 0)
            #expect(state.status == .playing)
            #expect(state.position == PositionAnchor(valueMs: 0, at: ClockInstant(milliseconds: Int64(lap) * 100_000)))
        }
    }

    @Test func repeatAllWrapsTheQueue() async {
        let (core, clock) = await Self.playing("a3")
        _ = await core.perform(.setRepeatMode(.all), from: .local)
        await clock.advance(by: .seconds(300))
        #expect(await core.playbackState.queueIndex == 0)
        #expect(await core.playbackState.status == .playing)
        #expect(await core.perform(.skipToPrevious, from: .local) == .accepted)  // wraps back
        #expect(await core.playbackState.queueIndex == 2)
        #expect(await core.perform(.skipToNext, from: .local) == .accepted)
        #expect(await core.playbackState.queueIndex == 0)
    }

    @Test func shufflePlaysEveryItemOnceThenStops() async {
        var library = TestLibrary.standard
        library.tree["album-s"] = (0..<8).map { TestLibrary.track("s\($0)", seconds: 10) }
        library.tree["tab-albums"]?.append(BrowseItem(id: "album-s", title: "Shuffled", browsable: true))
        let (core, clock) = await Self.playing("s0", library: library)
        #expect(await core.perform(.setShuffle(true), from: .local) == .accepted)
        #expect(await core.playbackState.shuffle)
        var visited = [await core.playbackState.queueIndex]
        for _ in 0..<8 {
            await clock.advance(by: .seconds(10))
            let state = await core.playbackState
            if state.status == .playing { visited.append(state.queueIndex) }
        }
        #expect(await core.playbackState.status == .stopped)
        #expect(visited.compactMap { $0 }.sorted() == Array(0..<8))
        #expect(visited.first == 0)
        #expect(visited != (0..<8).map { Optional($0) })
    }

    @Test func nextPreviousAndSkipToQueueItem() async {
        let (core, clock) = await Self.playing("a1")
        #expect(await core.perform(.skipToPrevious, from: .local) == .accepted)  // first item: restarts it
        #expect(await core.playbackState.queueIndex == 0)
        #expect(await core.perform(.skipToNext, from: .local) == .accepted)
        #expect(await core.playbackState.queueIndex == 1)
        await clock.advance(by: .seconds(5))
        _ = await core.perform(.skipToPrevious, from: .local)  // 5 s in: back to the start of a2
        #expect(await core.playbackState.queueIndex == 1)
        #expect(await Self.position(core, clock) == 0)
        _ = await core.perform(.skipToPrevious, from: .local)  // at the start: the previous item
        #expect(await core.playbackState.queueIndex == 0)
        _ = await core.perform(.skipToQueueItem(2), from: .local)
        #expect(await core.mediaItem.item?.id == "a3")
        #expect(await core.perform(.skipToNext, from: .local) == .rejected(reason: "already at the end of the queue"))
    }

    @Test func skippingWhilePausedStaysPaused() async {
        let (core, _) = await Self.playing("a1")
        _ = await core.perform(.pause, from: .local)
        _ = await core.perform(.skipToNext, from: .local)
        #expect(await core.playbackState.status == .paused)
        #expect(await core.playbackState.queueIndex == 1)
        _ = await core.perform(.stop, from: .local)
        _ = await core.perform(.skipToNext, from: .local)
        #expect(await core.playbackState.status == .paused)
    }

    @Test func commandsFromTwoCarsAtOnceAreBothApplied() async {
        let (core, _) = await Self.playing("a1")
        async let one = core.perform(.skipToNext, from: .dashportCar(id: "car-1"))
        async let two = core.perform(.skipToNext, from: .aapKey(car: "car-2"))
        #expect(await [one, two] == [.accepted, .accepted])
        #expect(await core.playbackState.queueIndex == 2)
    }

    @Test func aClosedCoreIgnoresTheHandlersTimers() async {
        let (core, clock) = await Self.playing("a1")
        await core.close()
        await clock.advance(by: .seconds(100))
        #expect(await core.playbackState.queueIndex == 0)
        #expect(clock.pendingTimerCount == 0)
    }

    @Test func capabilitiesFollowTheLibrary() {
        let clock = ManualClock()
        let plain = DemoPlaybackHandler(library: TestLibrary.standard, clock: clock)
        var searchable = TestLibrary.standard
        searchable.searchable = true
        let searching = DemoPlaybackHandler(library: searchable, clock: clock)
        #expect(!plain.initialCapabilities.contains(.playFromSearch))
        #expect(searching.initialCapabilities.contains(.playFromSearch))
        #expect(plain.initialCapabilities.isSuperset(of: [.play, .pause, .seekTo, .skipToNext, .setShuffle, .setRepeatMode]))
        #expect(plain.initialCapabilities.contains(.customAction))  // the "favourite" button
    }
}
