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
    ///
    /// The buffer grows once by `count` frames and the samples are stored in place. The sine is a
    /// rotating phasor (one complex multiply per frame instead of a `sin`), started from the phase
    /// of each run of frames, so its error stays near 1e-13 and the waveform is the same as
    /// `sin(2π·phase)` to well under one LSB.
    mutating func render(_ count: Int, into buffer: inout [UInt8]) -> Int {
        let base = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: max(0, count) * SessionAudioFormat.bytesPerFrame))
        var audio = 0
        var silentTracks = 0  // tracks in a row that ran out without a frame: all empty, stop
        buffer.withUnsafeMutableBytes { bytes in
            let frames = UnsafeMutableRawBufferPointer(rebasing: bytes[base...])
            while audio < count, playing, let tone = current {
                let before = audio
                audio = renderRun(of: tone, from: audio, to: count, into: frames)
                guard let total = tone.frames.map(Double.init), position >= total else { continue }
                silentTracks = audio == before ? silentTracks + 1 : 0
                trackRanOut(overshoot: position - total)
                if silentTracks > tones.count {
                    playing = false
                    ended = true
                }
            }
        }
        return audio
    }

    /// Renders `tone` into frames `first..<count` of `frames` until they are full or the track ends;
    /// returns the index after the last frame written.
    private mutating func renderRun(of tone: DemoTone, from first: Int, to count: Int, into frames: UnsafeMutableRawBufferPointer) -> Int {
        let total = tone.frames.map(Double.init)
        let sampleRate = Double(SessionAudioFormat.sampleRate)
        let step = tone.hz / sampleRate
        let turn = 2 * Double.pi
        // The phasor (cos, sin) of the phase, and one step's rotation.
        var re = cos(turn * phase)
        var im = sin(turn * phase)
        let stepRe = cos(turn * step)
        let stepIm = sin(turn * step)
        let fade = Double(DemoTonePlayer.fadeFrames)
        let scale = DemoTonePlayer.amplitude * Double(Int16.max)
        var index = first
        while index < count {
            if let total, position >= total { break }
            // The fade (``gain(of:)``): 0 at either end, 1 from fadeFrames in.
            let gain = total.map { max(0, min(1, position / fade, ($0 - position) / fade)) } ?? 1
            var value = gain * im
            if var faded = tail {
                value += faded.gain * sin(turn * faded.phase)
                faded.phase += faded.hz / sampleRate
                if faded.phase >= 1 { faded.phase -= 1 }
                faded.gain -= 1 / fade
                tail = faded.gain > 0 ? faded : nil
            }
            let sample = Int16(clamping: Int((scale * value).rounded()))
            let bits = UInt32(UInt16(bitPattern: sample))
            // Both channels, little-endian: low byte, high byte, low, high.
            frames.storeBytes(of: (bits | bits << 16).littleEndian, toByteOffset: index * SessionAudioFormat.bytesPerFrame, as: UInt32.self)
            phase += step
            if phase >= 1 { phase -= 1 }
            (re, im) = (re * stepRe - im * stepIm, re * stepIm + im * stepRe)
            position += rate
            index += 1
        }
        return index
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
}
