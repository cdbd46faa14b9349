import Glibc

/// Which of a few tones a stretch of PCM carries, by the Goertzel algorithm (one DFT bin per
/// candidate frequency), so tests and the emulator's `np` can say "440 Hz is playing".
public enum ToneDetector {
    /// Candidates `np` listens for: concert A and its octave, 1 kHz test tone, a few more.
    public static let commonFrequencies: [Double] = [220, 440, 523.25, 660, 880, 1000, 1760, 2000]

    /// The level below which nothing counts as a tone: −40 dBFS.
    public static let defaultMinimumLevel = 0.01

    /// What was heard: the strongest candidate and its level.
    public struct Tone: Sendable, Hashable {
        public var frequency: Double
        /// The tone's amplitude relative to full scale (1.0 = a full-scale sine), 0…~1.
        public var level: Double
        /// `level` squared: the power relative to a full-scale sine.
        public var power: Double { level * level }
    }

    /// The candidate in `frequencies` with the most power in `samples` (interleaved S16 with
    /// `channels` channels, mixed to mono), or nil when none reaches `minimumLevel` (silence) or
    /// there is nothing to analyse.
    public static func dominant(
        in samples: [Int16], channels: Int = 2, sampleRate: Double = 48_000, frequencies: [Double] = commonFrequencies,
        minimumLevel: Double = defaultMinimumLevel
    ) -> Tone? {
        let channels = max(1, channels)
        let frames = samples.count / channels
        guard frames > 0, sampleRate > 0 else { return nil }
        var mono = [Double](repeating: 0, count: frames)
        for frame in 0..<frames {
            var sum = 0.0
            for channel in 0..<channels { sum += Double(samples[frame * channels + channel]) }
            mono[frame] = sum / Double(channels) / 32768
        }
        var best: Tone?
        for frequency in frequencies where frequency > 0 && frequency < sampleRate / 2 {
            let level = self.level(of: frequency, in: mono, sampleRate: sampleRate)
            if level >= minimumLevel, level > best?.level ?? 0 { best = Tone(frequency: frequency, level: level) }
        }
        return best
    }

    /// The amplitude of `frequency` in `mono` (samples in −1…1): Goertzel's magnitude scaled by 2/N.
    public static func level(of frequency: Double, in mono: [Double], sampleRate: Double) -> Double {
        guard !mono.isEmpty else { return 0 }
        let coefficient = 2 * cos(2 * Double.pi * frequency / sampleRate)
        var previous = 0.0
        var beforePrevious = 0.0
        for sample in mono {
            let current = sample + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        return 2 * max(0, power).squareRoot() / Double(mono.count)
    }
}
