/// One AAP media DATA message's worth of the session's audio: 2048 frames of 48 kHz S16LE
/// stereo (8192 bytes), and when it plays, in µs on the server's monotonic clock (the 8-byte
/// big-endian timestamp the DATA message begins with; aap-audio.md §A.1#12).
public struct AudioPacket: Sendable, Hashable {
    public var timestampMicros: UInt64
    public var pcm: [UInt8]

    public init(timestampMicros: UInt64, pcm: [UInt8]) {
        self.timestampMicros = timestampMicros
        self.pcm = pcm
    }
}
