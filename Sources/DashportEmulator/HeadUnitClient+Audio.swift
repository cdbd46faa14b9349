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
    /// The strongest of ``ToneDetector/commonFrequencies`` in the latest samples; nil for silence.
    public var tone: ToneDetector.Tone?

    public init(_ sink: MediaSinkClient, now: Duration) {
        channel = sink.channel
        stats = sink.stats
        format = sink.format
        codec = sink.codec
        focus = sink.focus
        lead = sink.lead(at: now)
        tone = ToneDetector.dominant(
            in: sink.recentSamples, channels: Int(sink.format.numberOfChannels), sampleRate: Double(sink.format.samplingRate))
    }
}

extension HeadUnitClient {
    /// The media audio sink's state (stats, recent samples), or nil when the configuration has no
    /// ``HeadUnitConfiguration/audio``. The PCM itself goes to the `audioOutput` given at connect.
    public var audio: MediaSinkClient? { link.audio }

    /// The sink's state now, with the lead and the dominant tone worked out; nil without audio.
    public func audioSnapshot() -> AudioSnapshot? {
        link.audio.map { AudioSnapshot($0, now: now()) }
    }
}
