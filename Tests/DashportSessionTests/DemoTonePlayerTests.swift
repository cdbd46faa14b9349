import DashportTestSupport
import DashportClock
import DashportBrowse
import Foundation
import Synchronization
import Testing
@testable import DashportSession

/// The demo handler with its player attached: what the car hears, and the session following the
/// frames pulled (never the clock: no test here advances it).
@Suite struct DemoTonePlayerTests {
    static let packet = SessionAudioFormat.framesPerPacket
    /// The loudest sample a faded-in frame `k` (or a frame `k` before the end) may have.
    static func fadeCeiling(_ k: Int) -> Int {
        Int((DemoTonePlayer.amplitude * Double(Int16.max) * Double(k + 1) / Double(DemoTonePlayer.fadeFrames)).rounded(.up)) + 1
    }
    static let fullScale = DemoTonePlayer.amplitude * Double(Int16.max)

    @Test func thePlayingTracksToneDominatesAtMinus12dBFS() async {
        let rig = AudioRig()
        await rig.play("t3")
        #expect(rig.player.isStreaming)
        #expect(rig.wakeCount == 1)
        let samples = rig.pullPackets(2)
        let tone = dominantTone(samples[Self.packet...], among: candidateTones)
        #expect(tone?.hz == 1046.5 && tone?.clear == true)
        let peak = samples[Self.packet...].map { abs(Int($0)) }.max() ?? 0
        #expect(abs(Double(peak) - Self.fullScale) < 0.01 * Self.fullScale)
        #expect(largestStep(samples) <= stepBound(hz: 1046.5))
    }

    @Test func nextPlaysTheNextTracksTone() async {
        let rig = AudioRig()
        await rig.play("t1")
        let first = rig.pullPackets(1)
        #expect(first.first == 0, "a track fades in from silence")
        #expect(await rig.core.perform(.skipToNext, from: .local) == .accepted)
        #expect(await rig.core.mediaItem.item?.id == "t2")
        let samples = rig.pullPackets(1)
        #expect(dominantTone(samples[480...], among: candidateTones)?.hz == 659.26)
        #expect(rig.framesPlayed == Double(Self.packet))
        // The cut-off tone fades out while the new one fades in: no click at the skip.
        #expect(largestStep(first + samples) <= stepBound(hz: 440) + stepBound(hz: 659.26))
    }

    @Test func pullingPacketsAdvancesThePositionByExactlyTheirFrames() async {
        let rig = AudioRig()
        await rig.play("t3")
        _ = rig.pullPackets(3)
        #expect(rig.framesPlayed == Double(3 * Self.packet))
        await rig.clock.advance(by: .seconds(10))  // the clock does not move the audio
        #expect(rig.framesPlayed == Double(3 * Self.packet))
        #expect(await rig.core.perform(.pause, from: .local) == .accepted)
        let state = await rig.core.playbackState
        #expect(state.status == .paused)
        #expect(state.position.valueMs == Int64(3 * Self.packet / 48))  // 128 ms
    }

    @Test func seekMovesThePositionAndTheFramesFollowIt() async {
        let rig = AudioRig()
        await rig.play("t3")
        _ = rig.pullPackets(1)
        #expect(await rig.core.perform(.seekTo(ms: 50), from: .local) == .accepted)
        #expect(rig.framesPlayed == 50 * 48)
        let samples = rig.pullPackets(1)
        #expect(rig.framesPlayed == Double(50 * 48 + Self.packet))
        #expect(largestStep(samples) <= stepBound(hz: 1046.5), "a seek inside a track keeps the waveform")
        _ = await rig.core.perform(.pause, from: .local)
        #expect(await rig.core.playbackState.position.valueMs == Int64(50 * 48 + Self.packet) / 48)
    }

    @Test func anAutomaticTrackChangeIsGaplessAndFadesThroughSilence() async {
        let rig = AudioRig()
        var updates = await rig.core.subscribe().makeAsyncIterator()
        await rig.play("t1")  // 100 ms: 4800 frames
        let (samples, audio) = rig.pull(3 * Self.packet)  // crosses into t2 at frame 4800
        #expect(audio == 3 * Self.packet, "no gap: every frame is audio")
        #expect(rig.framesPlayed == Double(3 * Self.packet - 4800), "no frame lost or repeated")
        #expect(largestStep(samples) <= stepBound(hz: 659.26))
        #expect(samples[0] == 0 && samples[4800] == 0)
        for k in 0..<48 {
            #expect(abs(Int(samples[k])) <= Self.fadeCeiling(k), "fade-in at the start")
            #expect(abs(Int(samples[4799 - k])) <= Self.fadeCeiling(k), "fade-out at the end")
            #expect(abs(Int(samples[4800 + k])) <= Self.fadeCeiling(k), "fade-in of the next")
        }
        #expect(dominantTone(samples[2048..<4096], among: candidateTones)?.hz == 440)
        #expect(dominantTone(samples[4800 + 480..<6144], among: candidateTones)?.hz == 659.26)

        // The handler hears of it and broadcasts the new item, anchored on the frames.
        let state = await awaitUpdate(&updates) { $0.playbackState?.queueIndex == 1 }?.playbackState
        #expect(state?.status == .playing)
        #expect(state?.position.valueMs == Int64(3 * Self.packet - 4800) / 48)  // 28 ms
        #expect(await rig.core.mediaItem.item?.id == "t2")
    }

    @Test func pauseStopsTheStreamAndPlayWakesThePump() async {
        let rig = AudioRig()
        await rig.play("t3")
        _ = rig.pullPackets(1)
        _ = await rig.core.perform(.pause, from: .local)
        #expect(!rig.player.isStreaming)
        #expect(rig.pull(Self.packet).audio == 0)
        #expect(rig.framesPlayed == Double(Self.packet))
        _ = await rig.core.perform(.play, from: .local)
        #expect(rig.player.isStreaming)
        #expect(rig.wakeCount == 2)
        #expect(rig.pull(Self.packet).audio == Self.packet)
        #expect(rig.framesPlayed == Double(2 * Self.packet))
    }

    @Test func theEndOfTheQueueStopsTheStreamAndTheSession() async {
        let rig = AudioRig()
        var updates = await rig.core.subscribe().makeAsyncIterator()
        await rig.play("t3")  // the last track: 9600 frames
        let (samples, audio) = rig.pull(5 * Self.packet)
        #expect(audio == 9600)
        #expect(samples[9600...].allSatisfy { $0 == 0 })
        #expect(!rig.player.isStreaming)
        let state = await awaitUpdate(&updates) { $0.playbackState?.status == .stopped && $0.playbackState?.queueIndex != nil }?
            .playbackState
        #expect(state?.position.valueMs == 200)
        #expect(state?.queueIndex == 2)
    }

    @Test func repeatOneReplaysTheTrackAndRepeatAllWraps() async {
        let rig = AudioRig()
        await rig.play("t3")
        _ = await rig.core.perform(.setRepeatMode(.one), from: .local)
        let once = rig.pull(5 * Self.packet)
        #expect(once.audio == 5 * Self.packet)
        #expect(dominantTone(once.samples[9600 + 480..<10240], among: candidateTones)?.hz == 1046.5)
        _ = await rig.core.perform(.setRepeatMode(.all), from: .local)
        _ = await rig.core.perform(.seekTo(ms: 190), from: .local)
        let wrapped = rig.pull(Self.packet)
        #expect(wrapped.audio == Self.packet)
        #expect(dominantTone(wrapped.samples[960...], among: candidateTones)?.hz == 440)
        #expect(rig.framesPlayed == Double(Self.packet - 480))
    }

    @Test func anEndOfTrackSleepTimerPausesWhereTheAudioEnds() async {
        let rig = AudioRig()
        var updates = await rig.core.subscribe().makeAsyncIterator()
        await rig.play("t1")
        #expect(await rig.core.perform(.setSleepTimer(.endOfTrack), from: .local) == .accepted)
        await rig.clock.advance(by: .seconds(1))  // past the clock's estimate: the audio decides
        #expect(await rig.core.activeSleepTimer != nil)
        let (samples, audio) = rig.pull(3 * Self.packet)
        #expect(audio == 4800, "not a frame of the next track")
        #expect(samples[4800...].allSatisfy { $0 == 0 })
        #expect(!rig.player.isStreaming)
        #expect(await awaitUpdate(&updates) { $0 == .sleepTimerFired } != nil)
        #expect(await rig.core.playbackState.status == .paused)
        #expect(await rig.core.mediaItem.item?.id == "t2")
        #expect(await rig.core.activeSleepTimer == nil)
    }

    @Test func aRateAboveOneMovesThePositionFaster() async {
        let rig = AudioRig()
        await rig.play("t3")
        _ = await rig.core.perform(.setRate(2), from: .local)
        let samples = rig.pullPackets(1)
        #expect(rig.framesPlayed == Double(2 * Self.packet))
        #expect(dominantTone(samples[480...], among: candidateTones)?.hz == 1046.5, "the pitch stays")
    }

    @Test func theDemoLibrarysTracksSoundTheirCatalogTones() async throws {
        let rig = AudioRig(library: try demoCatalog())
        await rig.play("album-northern-lights")
        #expect(dominantTone(rig.pullPackets(2).dropFirst(Self.packet), among: candidateTones)?.hz == 220)
        _ = await rig.core.perform(.skipToNext, from: .local)
        #expect(dominantTone(rig.pullPackets(2).dropFirst(Self.packet), among: candidateTones)?.hz == 293.66)
    }

    @Test func anItemWithoutAToneGetsAStableNoteFromItsId() {
        let podcast = MediaItem(id: "ep-rn-12")
        let hz = DemoTonePlayer.toneHz(of: podcast)
        #expect(DemoTonePlayer.toneRange.contains(hz))
        #expect(hz == DemoTonePlayer.defaultToneHz(for: "ep-rn-12"))
        #expect(DemoTonePlayer.toneHz(of: MediaItem(id: "x", extras: ["toneHz": "5000"])) == DemoTonePlayer.defaultToneHz(for: "x"))
        #expect(DemoTonePlayer.toneHz(of: MediaItem(id: "x", extras: ["toneHz": "329.63"])) == 329.63)
    }

    @Test func unattachedTheHandlerMakesNoSoundAndPlaysOnTheClock() async {
        let clock = ManualClock()
        let handler = DemoPlaybackHandler(library: TestLibrary.standard, clock: clock, shuffleSeed: 42)
        let core = SessionCore(handler: handler, clock: clock, configuration: testConfiguration)
        _ = await core.perform(.playFromMediaId("a1"), from: .local)
        #expect(!handler.endsTracksWithAudio)
        #expect(!handler.player.isStreaming)
        await clock.advance(by: .seconds(100))
        #expect(await core.mediaItem.item?.id == "a2")
    }

    @Test func attachedWhilePlayingOnTheClockTheAudioTakesOverWhereTheClockWas() async {
        let clock = ManualClock()
        let handler = DemoPlaybackHandler(library: TestLibrary.standard, clock: clock, shuffleSeed: 42)
        let core = SessionCore(handler: handler, clock: clock, configuration: testConfiguration)
        _ = await core.perform(.playFromMediaId("a1"), from: .local)  // 100 s
        await clock.advance(by: .seconds(30))
        handler.player.attach {}
        _ = await core.perform(.setRepeatMode(.none), from: .local)  // any command syncs with the audio
        #expect(handler.player.isStreaming)
        #expect(handler.endsTracksWithAudio)
        #expect(handler.player.deck.withLock { $0.position } == 30 * 48_000)
        await clock.advance(by: .seconds(100))  // the clock's track end is disarmed
        #expect(await core.mediaItem.item?.id == "a1")
    }

    @Test func shuffleDecidesWhatTheAudioPlaysNext() async {
        let rig = AudioRig()
        var updates = await rig.core.subscribe().makeAsyncIterator()
        await rig.play("t1")
        _ = await rig.core.perform(.setShuffle(true), from: .local)
        let order = rig.player.deck.withLock { $0.order }
        #expect(order.first == 0 && Set(order) == [0, 1, 2])
        let (samples, _) = rig.pull(4800 + Self.packet)
        let next = order[1]
        let hz: Double = [440, 659.26, 1046.5][next]
        #expect(dominantTone(samples[(4800 + 480)...], among: candidateTones)?.hz == hz)
        let state = await awaitUpdate(&updates) { $0.playbackState?.queueIndex == next }?.playbackState
        #expect(state?.shuffle == true && state?.status == .playing)
    }
}

/// The demo catalog from Fixtures.
func demoCatalog() throws -> CatalogProvider {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return try CatalogProvider(contentsOf: root.path + "/Fixtures/demo/catalog.json")
}
