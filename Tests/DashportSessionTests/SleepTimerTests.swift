import DashportTestSupport
import DashportClock
import DashportBrowse
import Testing
@testable import DashportSession

@Suite struct SleepTimerTests {
    /// A demo core playing `id` from 0 at t=0, and a subscription opened before anything happened.
    static func playing(_ id: String, library: TestLibrary = .standard) async -> (SessionCore, ManualClock, AsyncStream<SessionUpdate>) {
        let clock = ManualClock()
        let core = makeDemoCore(clock: clock, library: library)
        let updates = await core.subscribe()
        _ = await core.perform(.playFromMediaId(id), from: .local)
        return (core, clock, updates)
    }

    static func status(_ core: SessionCore) async -> PlaybackStatus { await core.playbackState.status }

    /// Checks the update log: the timer fired exactly once, and the last state before it was paused.
    static func expectPausedThenReported(_ updates: [SessionUpdate], sourceLocation: SourceLocation = #_sourceLocation) {
        let fired = updates.indices.filter { updates[$0] == .sleepTimerFired }
        #expect(fired.count == 1, sourceLocation: sourceLocation)
        guard let index = fired.first else { return }
        let lastState = updates[..<index].compactMap(\.playbackState).last
        #expect(lastState?.status == .paused, sourceLocation: sourceLocation)
        #expect(!updates[index...].contains { $0.playbackState != nil }, sourceLocation: sourceLocation)
    }

    @Test func aDurationCountsClockTimeAcrossSeeksAndRateChanges() async {
        let (core, clock, updates) = await Self.playing("a3")
        #expect(await core.perform(.setSleepTimer(.duration(ms: 60_000)), from: .local) == .accepted)
        await clock.advance(by: .seconds(10))
        _ = await core.perform(.seekTo(ms: 100_000), from: .local)
        _ = await core.perform(.setRate(2), from: .local)
        await clock.advance(by: .milliseconds(49_999))
        #expect(await Self.status(core) == .playing)
        #expect(await core.activeSleepTimer?.deadline == ClockInstant(milliseconds: 60_000))
        await clock.advance(by: .milliseconds(1))
        #expect(await Self.status(core) == .paused)
        #expect(await core.activeSleepTimer == nil)
        #expect(await core.projectedPositionMs(at: clock.now) == 200_000)
        await core.close()
        Self.expectPausedThenReported(await drain(updates))
    }

    @Test func endOfTrackFollowsSeekRatePauseAndPlay() async {
        let (core, clock, updates) = await Self.playing("a3")  // 300 s
        #expect(await core.perform(.setSleepTimer(.endOfTrack), from: .local) == .accepted)
        #expect(await core.activeSleepTimer?.deadline == ClockInstant(milliseconds: 300_000))
        await clock.advance(by: .seconds(10))
        _ = await core.perform(.seekTo(ms: 250_000), from: .local)
        #expect(await core.activeSleepTimer?.deadline == ClockInstant(milliseconds: 60_000))
        _ = await core.perform(.setRate(2), from: .local)
        #expect(await core.activeSleepTimer?.deadline == ClockInstant(milliseconds: 35_000))
        await clock.advance(by: .seconds(5))
        _ = await core.perform(.pause, from: .local)  // at 260 s of 300
        #expect(await core.activeSleepTimer?.deadline == nil)
        await clock.advance(by: .seconds(100))
        #expect(await core.activeSleepTimer != nil)
        _ = await core.perform(.play, from: .local)  // t = 115 s; 40 s left at 2x
        #expect(await core.activeSleepTimer?.deadline == ClockInstant(milliseconds: 135_000))
        await clock.advance(by: .milliseconds(19_999))
        #expect(await Self.status(core) == .playing)
        await clock.advance(by: .milliseconds(1))
        #expect(await Self.status(core) == .paused)
        #expect(await core.activeSleepTimer == nil)
        await core.close()
        Self.expectPausedThenReported(await drain(updates))
    }

    @Test func endOfTrackFiresWhenAnotherItemStarts() async {
        let (core, clock, updates) = await Self.playing("a1")
        _ = await core.perform(.setSleepTimer(.endOfTrack), from: .local)
        await clock.advance(by: .seconds(10))
        #expect(await core.perform(.skipToNext, from: .local) == .accepted)
        #expect(await Self.status(core) == .paused)
        #expect(await core.mediaItem.item?.id == "a2")
        await core.close()
        Self.expectPausedThenReported(await drain(updates))
    }

    @Test func endOfTrackFiresWhenTheTrackRunsOut() async {
        let (core, clock, updates) = await Self.playing("a1")
        _ = await core.perform(.setSleepTimer(.endOfTrack), from: .local)
        await clock.advance(by: .seconds(100))
        #expect(await Self.status(core) == .paused)
        await clock.advance(by: .seconds(500))
        #expect(await Self.status(core) == .paused)
        await core.close()
        Self.expectPausedThenReported(await drain(updates))
    }

    @Test func endOfTrackWithoutADurationWaitsForTheItemToChange() async {
        var library = TestLibrary.standard
        library.tree["tab-radio"] = [TestLibrary.track("r1", seconds: nil), TestLibrary.track("r2", seconds: nil)]
        let (core, clock, updates) = await Self.playing("r1", library: library)
        _ = await core.perform(.setSleepTimer(.endOfTrack), from: .local)
        #expect(await core.activeSleepTimer?.deadline == nil)
        await clock.advance(by: .seconds(3600))
        #expect(await Self.status(core) == .playing)
        _ = await core.perform(.skipToNext, from: .local)
        #expect(await Self.status(core) == .paused)
        await core.close()
        Self.expectPausedThenReported(await drain(updates))
    }

    @Test(arguments: [0, -1, -.infinity, .infinity, .nan, Double(24 * 3_600_000 + 1)])
    func invalidDurationsAreRejected(ms: Double) async {
        let (core, _, _) = await Self.playing("a1")
        let result = await core.perform(.setSleepTimer(.duration(ms: ms)), from: .local)
        #expect(result.reason?.contains("not a finite duration above 0") == true)
        #expect(await core.activeSleepTimer == nil)
    }

    @Test func endOfTrackWithNothingPlayingIsRejected() async {
        let core = makeDemoCore(clock: ManualClock())
        #expect(
            await core.perform(.setSleepTimer(.endOfTrack), from: .local)
                == .rejected(reason: "nothing is playing, so there is no track to end"))
    }

    @Test func reArmingReplacesTheTimer() async {
        let (core, clock, updates) = await Self.playing("a3")
        _ = await core.perform(.setSleepTimer(.duration(ms: 60_000)), from: .local)
        await clock.advance(by: .seconds(30))
        _ = await core.perform(.setSleepTimer(.duration(ms: 60_000)), from: .local)
        await clock.advance(by: .seconds(59))  // t = 89 s: the first timer would have fired at 60 s
        #expect(await Self.status(core) == .playing)
        await clock.advance(by: .seconds(1))
        #expect(await Self.status(core) == .paused)
        await clock.advance(by: .seconds(120))
        await core.close()
        Self.expectPausedThenReported(await drain(updates))
    }

    @Test func aCancelledTimerNeverFires() async {
        let (core, clock, updates) = await Self.playing("a3")
        _ = await core.perform(.setSleepTimer(.duration(ms: 1000)), from: .local)
        #expect(await core.perform(.cancelSleepTimer, from: .local) == .accepted)
        await clock.advance(by: .seconds(60))
        #expect(await Self.status(core) == .playing)
        await core.close()
        #expect(!(await drain(updates)).contains(.sleepTimerFired))
    }

    @Test func firingWhilePausedOnlyReports() async {
        let (core, clock, updates) = await Self.playing("a3")
        _ = await core.perform(.setSleepTimer(.duration(ms: 1000)), from: .local)
        _ = await core.perform(.pause, from: .local)
        await clock.advance(by: .seconds(1))
        #expect(await core.activeSleepTimer == nil)
        await core.close()
        Self.expectPausedThenReported(await drain(updates))
    }
}
