import DashportClock
import DashportSession
import DashportTransport

/// What the cars hear, and what drains the audio input socket (`AudioInputServer`).
///
/// The cars hear the session handler's own sound (the demo's tones) when it makes one; a handler
/// without a sound of its own (MPD's player: MPD plays, its pipe output writes the input), or one
/// that hands out a ``SessionAudioInput`` as its source, is heard through the input. The input is
/// pulled in real time while it streams in every case: when the cars hear something else, a second
/// fan-out that no car reads pulls it, so a writer (MPD's pipe) is drained at the pace it plays and
/// never blocks. The input is told whether a car's sink is subscribed to what carries it
/// (``SessionAudioInput/setListening(_:)``): never, when the cars hear the handler's sound.
struct AudioPlan: Sendable {
    let input: SessionAudioInput
    /// The stream every car's media audio sink reads.
    let fanout: AudioFanout
    /// Pulls the input unheard, when the cars hear the handler's own sound.
    let drain: AudioFanout?

    init(handlerSource: (any SessionAudioSource)?, clock: any DashportClock, timer: any AudioTimer = ReactorAudioTimer(loop: .shared)) {
        let input = handlerSource as? SessionAudioInput ?? SessionAudioInput()
        let heard: any SessionAudioSource = handlerSource ?? input
        self.input = input
        if heard === input {
            fanout = AudioFanout(source: input, clock: clock, timer: timer) { input.setListening($0) }
            drain = nil
        } else {
            fanout = AudioFanout(source: heard, clock: clock, timer: timer)
            drain = AudioFanout(source: input, clock: clock, timer: timer)
        }
    }

    /// Whether the cars hear the input (not the handler's own sound).
    var carsHearInput: Bool { drain == nil }

    func start() {
        fanout.start()
        drain?.start()
    }

    func stop() {
        fanout.stop()
        drain?.stop()
    }
}
