import DashportSession

/// When the packets of one audio stream are due (sans-IO: times in, counts out), so the pump's
/// cadence is tested on plain durations.
///
/// Packet `n` plays at `start + n × 2048 / 48 kHz` and is made ``lead`` (``leadPackets`` packets)
/// before that: on ``begin(at:)`` three packets are due at once (the one that plays now and two of
/// lead; the recipe allows one or two packets ahead, aap-audio.md §A.0), then one every 42.67 ms.
/// Two of lead let a car ride out a stall of its reactor, or of the machine, of up to two packet
/// lengths without running dry. A pump that was held up (a stalled reactor) makes at most ``maxBurst`` packets
/// at once and moves the stream's start by the rest of its lateness: the cars then get a short
/// gap of real time rather than a burst that runs far ahead, and the source skips nothing.
struct AudioPacer {
    /// Packets made ahead of the one playing.
    static let leadPackets = 2
    static let lead = SessionAudioFormat.packetStart(leadPackets)
    static let maxBurst = 4

    /// When packet 0 plays (a duration since the clock's origin).
    private(set) var start: Duration = .zero
    /// Packets made in this stream.
    private(set) var made = 0

    mutating func begin(at now: Duration) {
        start = now
        made = 0
    }

    /// When packet `n` is made: when the one ``leadPackets`` before it plays (exactly, in frames).
    func due(_ n: Int) -> Duration {
        n >= Self.leadPackets
            ? start + SessionAudioFormat.packetStart(n - Self.leadPackets) : start - SessionAudioFormat.packetStart(Self.leadPackets - n)
    }

    /// How many packets are due at `now`; they count as made.
    mutating func due(at now: Duration) -> Int {
        var count = 0
        while due(made) <= now, count < Self.maxBurst {
            made += 1
            count += 1
        }
        if due(made) <= now {
            // Still late after a full burst: the stream starts later by what is left.
            start += now - due(made)
        }
        return count
    }

    /// When the next packet is due.
    var nextDue: Duration { due(made) }

    /// The DATA timestamp of packet `n`: when it plays, in µs on the server's monotonic clock.
    func timestampMicros(ofPacket n: Int) -> UInt64 {
        let time = start + SessionAudioFormat.packetStart(n)
        let (seconds, attoseconds) = time.components
        return UInt64(max(0, seconds)) * 1_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000_000)
    }
}
