public import DashportHeadUnit
public import DashportMessages

/// What the car's media audio sink has heard, at one moment: for `np` and for tests.
public struct AudioSnapshot: Sendable, Hashable {
    /// The sink's channel; nil when the car lists no PCM media sink.
    public var channel: UInt8?
    public var stats: MediaSinkStats
    /// The running (or last) stream's format.
    public var format: AAP.AudioConfiguration
    /// The latest SETUP's codec.
    public var codec: AAP.MediaCodecType?
    /// The focus we last told the phone.
    public var focus: AAP.AudioFocusNotification.State?
    /// Audio received ahead of real time (``MediaSinkClient/lead(at:)``); nil outside a stream.
    public var lead: Duration?
    /// The pitch the playing item is written to have (``toneHz(of:)``), listened for first.
    public var expectedToneHz: Double?
    /// The strongest tone in the latest samples: the expected one when it is the strongest, else
    /// the strongest of ``ToneDetector/commonFrequencies``; nil for silence.
    public var tone: ToneDetector.Tone?

    /// `expectedToneHz`: the playing item's pitch, say ``toneHz(of:)`` of the item `np` shows.
    public init(_ sink: MediaSinkClient, now: Duration, expectedToneHz: Double? = nil) {
        channel = sink.channel
        stats = sink.stats
        format = sink.format
        codec = sink.codec
        focus = sink.focus
        lead = sink.lead(at: now)
        let sampleRate = Double(sink.format.samplingRate)
        self.expectedToneHz = expectedToneHz.flatMap { $0 > 0 && $0 < sampleRate / 2 ? $0 : nil }
        // The expected pitch competes with the common ones: it is reported when it is what plays,
        // and a car hearing something else still says what that is.
        var candidates = ToneDetector.commonFrequencies
        if let expected = self.expectedToneHz { candidates = [expected] + candidates.filter { $0 != expected } }
        tone = ToneDetector.dominant(
            in: sink.recentSamples, channels: Int(sink.format.numberOfChannels), sampleRate: sampleRate, frequencies: candidates)
    }

    /// An item's `extras["toneHz"]` (the pitch the demo library streams for it) when it is a
    /// positive number; nil otherwise.
    public static func toneHz(of item: DashportMedia.MediaItem?) -> Double? {
        guard let text = item?.extras.first(where: { $0.key == "toneHz" })?.value, let hz = Double(text), hz.isFinite, hz > 0 else {
            return nil
        }
        return hz
    }
}

extension HeadUnitClient {
    /// The media audio sink's state (stats, recent samples), or nil when the configuration has no
    /// ``HeadUnitConfiguration/audio``. The PCM itself goes to the `audioOutput` given at connect.
    public var audio: MediaSinkClient? { link.audio }

    /// The sink's state now, with the lead and the dominant tone worked out (listening first for
    /// `expectedToneHz`, the playing item's pitch); nil without audio.
    public func audioSnapshot(expectedToneHz: Double? = nil) -> AudioSnapshot? {
        link.audio.map { AudioSnapshot($0, now: now(), expectedToneHz: expectedToneHz) }
    }
}
