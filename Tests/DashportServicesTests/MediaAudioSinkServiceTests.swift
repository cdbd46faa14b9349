import DashportLog
import DashportMessages
import Testing
@testable import DashportServices

@Suite("Media audio sink: setup, focus and streams")
struct MediaAudioSinkServiceTests {
    /// Open: RELEASE on channel 0 (id 18), then SETUP{PCM} on the sink's channel; exactly once.
    @Test func openSendsReleaseThenSetup() {
        var sink = MediaAudioSinkService(channel: sinkChannel, car: "car-1", audioConfigs: [stereo48k], protocolAtLeast5: false)
        #expect(sink.state == .closed)
        let actions = sink.open(now: .zero)
        #expect(
            actions.effects == [
                .send(releaseRequest), .send(OutgoingMessage(channel: sinkChannel, messageId: setupId, body: [0x08, 0x01])),
            ])
        #expect(sink.state == .awaitingConfig)
        #expect(sink.open(now: .seconds(1)).sent.isEmpty, "a second open sends nothing")
    }

    /// CONFIG READY: the window is `max_unacked`, 0 or absent being 1; the indices are logged.
    @Test(arguments: [(UInt32?.some(1), 1), (4096, 4096), (0, 1), (nil, 1)])
    func configReadySetsTheWindow(maxUnacked: UInt32?, window: Int) throws {
        var sink = MediaAudioSinkService.opened()
        let actions = sink.receive(messageId: configId, body: configBody(maxUnacked: maxUnacked, indices: [0, 2]), now: .zero)
        #expect(sink.state == .ready)
        #expect(sink.windowSize == window)
        #expect(sink.statistics.windowSize == window)
        #expect(actions.sent.isEmpty, "nothing starts while the session does not play")
        let line = try #require(actions.logs.first)
        #expect(line.message.contains("configuration_indices [0,2]") && line.messageId == configId)
    }

    /// CONFIG WAIT keeps the sink waiting (no START even with focus and play); READY then starts.
    @Test func configWaitKeepsWaiting() {
        var sink = MediaAudioSinkService.opened()
        let wait = sink.receive(messageId: configId, body: configBody(.wait), now: .zero)
        #expect(sink.state == .awaitingConfig && wait.effects.isEmpty && wait.logs.count == 1)
        _ = sink.focusNotification(body: focusBody(.gain), now: .zero)
        #expect(sink.playbackChanged(playing: true, now: .zero).sent.isEmpty)
        let ready = sink.receive(messageId: configId, body: configBody(), now: .zero)
        #expect(ready.sent == [startMessage(session: 0)])
    }

    /// START's configuration index is where 48000/16/2 sits in the sink's list.
    @Test func startUsesTheIndexOf48kStereo() {
        var sink = MediaAudioSinkService.opened(configs: [mono16k, stereo48k])
        _ = sink.receive(messageId: configId, body: configBody(), now: .zero)
        _ = sink.focusNotification(body: focusBody(.gain), now: .zero)
        #expect(sink.configurationIndex == 1)
        #expect(sink.playbackChanged(playing: true, now: .zero).sent == [startMessage(session: 0, index: 1)])
    }

    /// A sink without 48000/16/2 gets index 0, and open says so in a warning.
    @Test func missingFormatFallsBackToIndexZero() {
        var sink = MediaAudioSinkService(channel: sinkChannel, car: "car-1", audioConfigs: [mono16k], protocolAtLeast5: false)
        let actions = sink.open(now: .zero)
        #expect(sink.configurationIndex == 0 && !sink.listsSessionFormat)
        #expect(actions.logs.contains { $0.level == .warning && $0.message.contains("16000/16/1") })
    }

    /// Pause is STOP (empty body, focus kept), resume a new START: session ids 0, 1, 2.
    @Test func sessionIdsCountAcrossPauseAndResume() {
        var sink = MediaAudioSinkService.streaming()
        for session: UInt8 in 1...2 {
            #expect(sink.playbackChanged(playing: false, now: .seconds(1)).sent == [stopMessage])
            #expect(sink.state == .ready && sink.focusHeld)
            #expect(sink.playbackChanged(playing: true, now: .seconds(2)).sent == [startMessage(session: session)])
        }
        #expect(sink.statistics.sessionId == 2)
        #expect(sink.playbackChanged(playing: true, now: .seconds(3)).sent.isEmpty, "already streaming")
    }

    /// Without focus there is no START: one GAIN request, never repeated while unanswered.
    @Test func noStartBeforeGainAndOneRequest() {
        var sink = MediaAudioSinkService.ready()
        let play = sink.playbackChanged(playing: true, now: .zero)
        #expect(play.sent == [gainRequest])
        #expect(play.logs.contains { $0.message.contains("waiting for GAIN") })
        #expect(sink.playbackChanged(playing: true, now: .seconds(1)).sent.isEmpty)
        #expect(sink.playbackChanged(playing: false, now: .seconds(2)).sent.isEmpty, "no STOP: nothing started")
        #expect(sink.playbackChanged(playing: true, now: .seconds(3)).sent.isEmpty, "still no second request")
        #expect(!sink.canSend && sink.state == .ready)
        let gain = sink.focusNotification(body: focusBody(.gain), now: .seconds(4))
        #expect(gain.effects == [.send(startMessage(session: 0))])
    }

    /// A GAIN the car sent unasked (ohu, after SETUP) is focus: play starts at once.
    @Test(arguments: [AAP.AudioFocusNotification.State.gain, .gainTransient, .gainMediaOnly])
    func unsolicitedGainBeforePlay(state: AAP.AudioFocusNotification.State) {
        var sink = MediaAudioSinkService.ready()
        #expect(sink.focusNotification(body: focusBody(state, unsolicited: true), now: .zero).sent.isEmpty)
        #expect(sink.playbackChanged(playing: true, now: .zero).sent == [startMessage(session: 0)])
    }

    /// GUIDANCE_ONLY and INVALID are not media focus: no START.
    @Test(arguments: [AAP.AudioFocusNotification.State.gainTransientGuidanceOnly, .invalid, .init(rawValue: 42)])
    func otherFocusStatesAreNotMediaFocus(state: AAP.AudioFocusNotification.State) {
        var sink = MediaAudioSinkService.ready()
        _ = sink.playbackChanged(playing: true, now: .zero)
        #expect(sink.focusNotification(body: focusBody(state), now: .zero).effects.isEmpty)
        #expect(!sink.focusHeld && sink.state == .ready)
    }

    /// A LOSS mid-song stops the stream and pauses the session; GAIN starts stream n+1 and resumes.
    @Test(arguments: [AAP.AudioFocusNotification.State.loss, .lossTransient])
    func lossPausesAndGainResumes(state: AAP.AudioFocusNotification.State) {
        var sink = MediaAudioSinkService.streaming()
        _ = sink.send(packet: audioPacket(), now: .zero)
        let loss = sink.focusNotification(body: focusBody(state, unsolicited: true), now: .seconds(1))
        #expect(loss.effects == [.send(stopMessage), .pauseSession])
        #expect(!sink.focusHeld && !sink.canSend)
        // The driver pauses the session as asked: nothing more to do.
        #expect(sink.playbackChanged(playing: false, now: .seconds(1)).effects.isEmpty)
        let gain = sink.focusNotification(body: focusBody(.gain), now: .seconds(5))
        #expect(gain.effects == [.send(startMessage(session: 1)), .resumeSession])
        // The session resumes: already streaming.
        #expect(sink.playbackChanged(playing: true, now: .seconds(5)).effects.isEmpty)
        #expect(sink.canSend)
    }

    /// A LOSS while the user had paused pauses nothing, and the next GAIN resumes nothing.
    @Test func lossWhilePausedResumesNothing() {
        var sink = MediaAudioSinkService.streaming()
        _ = sink.playbackChanged(playing: false, now: .zero)
        #expect(sink.focusNotification(body: focusBody(.loss, unsolicited: true), now: .zero).effects.isEmpty)
        #expect(sink.focusNotification(body: focusBody(.gain), now: .zero).effects.isEmpty)
    }

    /// The LOSS answering our RELEASE (at open, and after playback ended) pauses nothing.
    @Test func lossAnsweringReleaseDoesNotPause() {
        var sink = MediaAudioSinkService.ready()
        #expect(sink.playbackChanged(playing: true, now: .zero).sent == [gainRequest])
        // The car answers the open's RELEASE, then our GAIN.
        #expect(sink.focusNotification(body: focusBody(.loss), now: .zero).effects.isEmpty)
        #expect(sink.focusNotification(body: focusBody(.gain), now: .zero).sent == [startMessage(session: 0)])
        let ended = sink.playbackEnded(now: .seconds(9))
        #expect(ended.sent == [stopMessage, releaseRequest])
        #expect(sink.focusNotification(body: focusBody(.loss), now: .seconds(9)).effects.isEmpty)
        #expect(sink.playbackEnded(now: .seconds(10)).sent.isEmpty, "nothing held any more")
    }

    /// A LOSS marked unsolicited is the car's, even with a RELEASE unanswered.
    @Test func unsolicitedLossIsNotAnAnswer() {
        var sink = MediaAudioSinkService.ready()
        _ = sink.playbackChanged(playing: true, now: .zero)
        let loss = sink.focusNotification(body: focusBody(.loss, unsolicited: true), now: .zero)
        #expect(loss.effects == [.pauseSession], "the session played (waiting for focus); nothing had started")
    }

    /// After playback ended, a new play asks for focus again.
    @Test func playAfterEndAsksForFocusAgain() {
        var sink = MediaAudioSinkService.streaming()
        _ = sink.playbackEnded(now: .zero)
        _ = sink.focusNotification(body: focusBody(.loss), now: .zero)
        #expect(sink.playbackChanged(playing: true, now: .seconds(1)).sent == [gainRequest])
        #expect(sink.focusNotification(body: focusBody(.gain), now: .seconds(1)).sent == [startMessage(session: 1)])
    }

    /// Play before the channel opened: open asks for focus after SETUP, READY then starts.
    @Test func playBeforeOpen() {
        var sink = MediaAudioSinkService(channel: sinkChannel, car: "car-1", audioConfigs: [stereo48k], protocolAtLeast5: false)
        #expect(sink.playbackChanged(playing: true, now: .zero).sent.isEmpty)
        #expect(sink.open(now: .zero).sent.map(\.messageId) == [focusRequestId, setupId, focusRequestId])
        _ = sink.focusNotification(body: focusBody(.loss), now: .zero)
        _ = sink.focusNotification(body: focusBody(.gain), now: .zero)
        #expect(sink.receive(messageId: configId, body: configBody(), now: .zero).sent == [startMessage(session: 0)])
    }
}
