import DashportRandom
import Glibc
import Synchronization

/// The demo library's sound: every track is a sine at its pitch (`extras["toneHz"]`), streamed to
/// the cars' media audio sinks (design: "The embedded default handler plays the demo library").
///
/// ``DemoPlaybackHandler`` owns one and returns it as its ``SessionHandler/audioSource``. Once the
/// server attached it, the audio is the player's clock: the handler cues it (what to play, from
/// where, playing or not, at which rate, in which order) synchronously before every broadcast, and
/// the position the cars are told is the frames pulled so far. When a track's frames run out inside
/// a pull, the pull goes on with the next track in play order (repeat one replays it, repeat all
/// wraps), sample-exact and gapless, and the handler is told once per track change, from a task, so
/// it broadcasts the new item; after the last track the player stops streaming and the session goes
/// stopped.
///
/// The sound: a sine at −12 dBFS (``amplitude``), the same on both channels, its phase continuous
/// within a track (a seek inside the track does not break the waveform), with a linear fade of
/// ``fadeFrames`` (10 ms) at each end of a track of known length, so an automatic track change
/// passes through silence and never clicks; a skip while playing fades the cut-off tone out over the
/// first 10 ms of the new one (which fades in). Pausing and stopping end the stream at once, as the
/// pump then stops every car's stream. A track without a valid `toneHz` (a podcast, a
/// radio stream, any item from another library) plays ``defaultToneHz(for:)``, a note derived from
/// its id. A stream without a length (radio) plays until the car moves on. A rate other than 1 is
/// rendered at the tone's own pitch, the position moving `rate` frames per frame pulled (so a 2×
/// track ends in half the time, and its fades last half as long).
///
/// Threading: ``pull(frames:into:)`` runs on the server's pump thread, the handler's cues on the
/// handler's actor; both take the same `Mutex` and nothing else (no allocation beyond the output
/// buffer, no waiting, no actor hop), and callbacks (`wake`, the handler's notice) are made after
/// the lock is released.
public final class DemoTonePlayer: SessionAudioSource {
    /// Peak level of the tone: −12 dBFS (10^(−12/20) of full scale).
    public static let amplitude = 0.251_188_643_150_958
    /// Length of the fade at each end of a track: 10 ms at 48 kHz.
    public static let fadeFrames = 480
    /// Valid `toneHz` values; outside this range (or unreadable) the default tone plays.
    public static let toneRange: ClosedRange<Double> = 200...2000
    /// Frames per millisecond at ``SessionAudioFormat/sampleRate``.
    static let framesPerMs = Int64(SessionAudioFormat.sampleRate / 1000)

    /// What the handler hears about: the server attached, or the audio moved on by itself (a track
    /// ran out: another one started, or the queue ended).
    enum Event: Sendable, Hashable {
        case attached, trackChanged
    }

    let deck: Mutex<DemoToneDeck>

    public init() {
        self.deck = Mutex(DemoToneDeck())
    }

    /// The pitch of `item`: its `extras["toneHz"]` when that is a number in ``toneRange``, else
    /// ``defaultToneHz(for:)``.
    public static func toneHz(of item: MediaItem) -> Double {
        if let text = item.extras?["toneHz"], let hz = Double(text), toneRange.contains(hz) { return hz }
        return defaultToneHz(for: item.id)
    }

    /// The tone of a track that has none: one of the 40 equal-tempered notes from G♯3 (207.65 Hz) to
    /// B6 (1975.53 Hz), chosen by the FNV-1a hash of the id, so the same item always sounds the same.
    public static func defaultToneHz(for id: String) -> Double {
        let note = 56 + Double(SplitMix64.fnv1a(id.utf8) % 40)  // MIDI note number; 69 is A4
        return 440 * exp2((note - 69) / 12)
    }

    // MARK: SessionAudioSource

    public func attach(wake: @escaping @Sendable () -> Void) {
        let listener = deck.withLock { deck in
            deck.wake = wake
            deck.attached = true
            return deck.listener
        }
        listener?(.attached)
        if isStreaming { wake() }
    }

    public var isStreaming: Bool { deck.withLock { $0.attached && $0.playing } }

    public func pull(frames: Int, into buffer: inout [UInt8]) -> Int {
        let count = max(0, frames)
        buffer.reserveCapacity(buffer.count + count * SessionAudioFormat.bytesPerFrame)
        let (audio, changed, listener) = deck.withLock { deck in
            let epoch = deck.epoch
            let audio = deck.render(count, into: &buffer)
            return (audio, deck.epoch != epoch, deck.listener)
        }
        if changed { listener?(.trackChanged) }
        return audio
    }

    // MARK: The handler's side

    /// Whether the server attached the player: the audio then drives the handler.
    var isAttached: Bool { deck.withLock { $0.attached } }

    /// Where `listen` is told about ``Event``s (set once by the handler).
    func listen(_ listener: @escaping @Sendable (Event) -> Void) {
        deck.withLock { $0.listener = listener }
    }

    /// The deck as it is now.
    func reading() -> DemoToneDeck.Reading { deck.withLock { $0.reading } }

    /// Applies the handler's cue; calls `wake` when the player starts streaming (play, resume, or a
    /// new track while playing).
    func cue(_ cue: DemoToneCue) {
        let wake = deck.withLock { deck in
            let wasPlaying = deck.playing
            deck.apply(cue)
            let starts = deck.playing && (!wasPlaying || cue.start != nil)
            return starts && deck.attached ? deck.wake : nil
        }
        wake?()
    }

    /// Stop at the end of the track `id` instead of going on (an end-of-track sleep timer), or no
    /// longer (nil).
    func holdAfter(_ id: String?) {
        deck.withLock { $0.holdAfter = id }
    }
}

/// One track as the player plays it.
struct DemoTone: Sendable, Hashable {
    var id: String
    var hz: Double
    /// Its length in frames; nil: endless (a live stream, an unknown length).
    var frames: Int64?

    init(_ item: MediaItem) {
        self.id = item.id
        self.hz = DemoTonePlayer.toneHz(of: item)
        self.frames = item.durationMs.map { max(0, $0) * DemoTonePlayer.framesPerMs }
    }
}

/// What the handler tells the player before a broadcast.
struct DemoToneCue: Sendable {
    /// The queue as tones (or the lone item when nothing is queued).
    var tones: [DemoTone]
    /// Indices into `tones` in play order (a permutation, or the identity).
    var order: [Int]
    var repeatMode: RepeatMode
    /// Jump to this track and position (ms); nil: keep the deck's own track and position, which
    /// may have moved on since the handler looked.
    var start: (index: Int?, positionMs: Int64)?
    var playing: Bool
    var rate: Double
}
