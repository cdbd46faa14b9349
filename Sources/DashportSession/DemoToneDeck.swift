import Glibc

/// The state behind ``DemoTonePlayer``'s lock and the synthesis: what is cued, where it is, and how
/// a pull renders it.
struct DemoToneDeck {
    var attached = false
    var wake: (@Sendable () -> Void)?
    var listener: (@Sendable (DemoTonePlayer.Event) -> Void)?
    /// Whether the handler ever cued the deck since it was attached.
    var loaded = false

    var tones: [DemoTone] = []
    var order: [Int] = []
    var repeatMode: RepeatMode = .none
    /// The playing track, an index into `tones`.
    var index: Int?
    /// Frames of the current track played (fractional at rates other than 1).
    var position: Double = 0
    var rate: Double = 1
    var playing = false
    /// The queue ran out: stopped at the end of the last track.
    var ended = false
    /// The current tone's phase, in cycles (0..<1).
    var phase: Double = 0
    /// Bumped on every change the audio made by itself (a track ran out).
    var epoch: UInt64 = 0
    /// An end-of-track sleep timer: stop when the track with this id runs out.
    var holdAfter: String?
    /// The tone a skip cut off while it was audible, fading out over the new one's first frames.
    var tail: Tail?

    struct Tail {
        var hz: Double
        var phase: Double
        var gain: Double
    }

    /// What the handler reads.
    struct Reading: Sendable, Hashable {
        var attached: Bool
        var loaded: Bool
        var index: Int?
        /// Position in whole milliseconds (frames / 48, rounded down).
        var positionMs: Int64
        var playing: Bool
        var ended: Bool
        var epoch: UInt64
    }

    var reading: Reading {
        Reading(
            attached: attached, loaded: loaded, index: index,
            positionMs: Int64(position) / DemoTonePlayer.framesPerMs, playing: playing, ended: ended, epoch: epoch)
    }

    var current: DemoTone? {
        guard let index, tones.indices.contains(index) else { return nil }
        return tones[index]
    }

    mutating func apply(_ cue: DemoToneCue) {
        loaded = true
        let previous = current
        let previousGain = playing ? previous.map(gain(of:)) ?? 0 : 0
        let previousPhase = phase
        tones = cue.tones
        order = cue.order
        repeatMode = cue.repeatMode
        rate = cue.rate > 0 && cue.rate.isFinite ? cue.rate : 1
        if let start = cue.start {
            index = start.index
            position = Double(max(0, start.positionMs) * DemoTonePlayer.framesPerMs)
            ended = false
            // The same tone keeps its phase (a seek does not break the waveform); another starts at 0.
            if current?.id != previous?.id || current?.hz != previous?.hz {
                phase = 0
                if let previous, previousGain > 0 { tail = Tail(hz: previous.hz, phase: previousPhase, gain: previousGain) }
            }
        }
        if let total = current?.frames, position > Double(total) { position = Double(total) }
        playing = cue.playing && current != nil
        if playing { ended = false } else { tail = nil }
    }

    /// The fade at `position` of `tone`: 0 at either end, 1 from ``DemoTonePlayer/fadeFrames`` in.
    func gain(of tone: DemoTone) -> Double {
        guard let total = tone.frames.map(Double.init) else { return 1 }
        let fade = Double(DemoTonePlayer.fadeFrames)
        return max(0, min(1, position / fade, (total - position) / fade))
    }

    /// Appends `count` frames to `buffer` and returns how many were tone; after the deck stops
    /// (paused, or the queue ran out) the rest is silence.
    mutating func render(_ count: Int, into buffer: inout [UInt8]) -> Int {
        var audio = 0
        var silentTracks = 0  // tracks in a row that ran out without a frame: all empty, stop
        while audio < count, playing, let tone = current {
            let before = audio
            let total = tone.frames.map(Double.init)
            let step = tone.hz / Double(SessionAudioFormat.sampleRate)
            while audio < count {
                if let total, position >= total { break }
                var value = gain(of: tone) * sin(2 * Double.pi * phase)
                if var faded = tail {
                    value += faded.gain * sin(2 * Double.pi * faded.phase)
                    faded.phase += faded.hz / Double(SessionAudioFormat.sampleRate)
                    if faded.phase >= 1 { faded.phase -= 1 }
                    faded.gain -= 1 / Double(DemoTonePlayer.fadeFrames)
                    tail = faded.gain > 0 ? faded : nil
                }
                Self.append(DemoTonePlayer.amplitude * value, to: &buffer)
                phase += step
                if phase >= 1 { phase -= 1 }
                position += rate
                audio += 1
            }
            guard let total, position >= total else { continue }
            silentTracks = audio == before ? silentTracks + 1 : 0
            trackRanOut(overshoot: position - total)
            if silentTracks > tones.count {
                playing = false
                ended = true
            }
        }
        let silence = count - audio
        if silence > 0 { buffer.append(contentsOf: repeatElement(0, count: silence * SessionAudioFormat.bytesPerFrame)) }
        return audio
    }

    /// The current track's frames are exhausted: the next per repeat and order (stopped and held
    /// when an end-of-track sleep timer waits for this one), or stopped at the end of the queue.
    private mutating func trackRanOut(overshoot: Double) {
        epoch &+= 1
        let finished = current?.id
        let hold = holdAfter != nil && holdAfter == finished
        if hold { holdAfter = nil }
        let navigator = QueueNavigator(count: tones.count, order: order)
        guard let next = navigator.afterTrackEnd(index, repeatMode: repeatMode) else {
            position = current?.frames.map(Double.init) ?? position
            playing = false
            ended = true
            return
        }
        index = next
        position = hold ? 0 : overshoot
        phase = 0
        if hold { playing = false }
    }

    /// One frame: the sample on both channels, 16-bit little-endian.
    private static func append(_ value: Double, to buffer: inout [UInt8]) {
        let sample = Int16(clamping: Int((value * Double(Int16.max)).rounded()))
        let bits = UInt16(bitPattern: sample)
        let low = UInt8(truncatingIfNeeded: bits)
        let high = UInt8(truncatingIfNeeded: bits >> 8)
        buffer.append(low)
        buffer.append(high)
        buffer.append(low)
        buffer.append(high)
    }
}
