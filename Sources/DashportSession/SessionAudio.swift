/// The PCM format of the session's audio: what every car's media audio sink is sent
/// (aap-audio.md §A.0): 48 kHz, 16-bit signed little-endian, two channels interleaved.
public enum SessionAudioFormat {
    public static let sampleRate = 48_000
    public static let channelCount = 2
    public static let bitsPerSample = 16
    /// Bytes of one frame (one sample per channel).
    public static let bytesPerFrame = 4
    /// Frames in one AAP DATA message: 2048 at 48 kHz, 42.67 ms (aap-audio.md §A.2#1).
    public static let framesPerPacket = 2048
    /// Bytes of PCM in one DATA message (8192).
    public static let bytesPerPacket = framesPerPacket * bytesPerFrame
    /// How long one packet plays.
    public static let packetDuration = Duration.nanoseconds(framesPerPacket * 1_000_000_000 / sampleRate)

    /// When the packet `index` of a stream begins, counted in frames so the cadence never drifts
    /// (42.666… ms each, not a rounded 42.67).
    public static func packetStart(_ index: Int) -> Duration {
        .nanoseconds(Int64(index) * Int64(framesPerPacket) * 1_000_000_000 / Int64(sampleRate))
    }
}

/// The session's sound, pulled by the server in real time and sent to every car that lists a media
/// audio sink: one stream, fanned out (design: "Media audio sink").
///
/// The server's audio pump calls ``pull(frames:into:)`` on a reactor thread, once per packet, at the
/// pace of the monotonic clock, for as long as ``isStreaming`` is true; so the source's position
/// follows the frames the cars were sent, and a source with nothing to say goes quiet. A source
/// must therefore never block, wait on an actor or do I/O in a pull: it hands out what it has
/// (what it synthesises, or what a reader thread buffered) and pads with silence.
public protocol SessionAudioSource: AnyObject, Sendable {
    /// Called once by the server before the first pull. The source calls `wake` (from any thread;
    /// cheap; extra calls are harmless) whenever ``isStreaming`` may have become true, so the pump
    /// starts pulling again without polling an idle source.
    func attach(wake: @escaping @Sendable () -> Void)
    /// Whether the source has audio now (it is playing). While false the pump does not pull and
    /// every car's stream is stopped.
    var isStreaming: Bool { get }
    /// Appends exactly `frames` frames (``SessionAudioFormat/bytesPerFrame`` bytes each) to
    /// `buffer`, silence where the source has none, and returns how many of them are audio.
    func pull(frames: Int, into buffer: inout [UInt8]) -> Int
}
