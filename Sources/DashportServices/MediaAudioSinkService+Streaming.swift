import DashportLog
import DashportMessages
import DashportSession

/// One DATA message's worth of the session's sound, as the server's audio pump produces it:
/// ``SessionAudioFormat/framesPerPacket`` frames of 48 kHz S16LE stereo
/// (``SessionAudioFormat/bytesPerPacket`` = 8192 bytes) and when they play.
public struct AudioPacket: Sendable, Hashable {
    /// The stream time of the packet's first frame, in µs (the DATA header; no HU uses it, any
    /// monotonic value works: aap-audio.md §A.1#13).
    public let timestampMicros: UInt64
    /// Interleaved S16LE samples, normally ``SessionAudioFormat/bytesPerPacket`` bytes.
    public let pcm: [UInt8]
    /// The DATA message's body, made once for every car: the 8-byte big-endian timestamp, then
    /// ``pcm``. A car at full gain sends this very array (no copy per car).
    public let body: [UInt8]

    public init(timestampMicros: UInt64, pcm: [UInt8]) {
        self.timestampMicros = timestampMicros
        self.pcm = pcm
        var body = [UInt8]()
        body.reserveCapacity(8 + pcm.count)
        withUnsafeBytes(of: timestampMicros.bigEndian) { body.append(contentsOf: $0) }
        body.append(contentsOf: pcm)
        self.body = body
    }
}

extension MediaAudioSinkService {
    /// Counters and state for `dashport ctl cars` and the logs.
    public struct Statistics: Sendable, Hashable {
        /// DATA messages sent.
        public var packetsSent: Int
        /// Bytes of DATA bodies sent (8-byte timestamp + PCM each).
        public var bytesSent: Int
        /// ACK messages received (on any stream).
        public var acks: Int
        /// AUDIO_UNDERFLOW_NOTIFICATIONs received.
        public var underflows: Int
        /// Packets the driver skipped for this car (``dropped(count:)``).
        public var dropped: Int
        /// The current (or last) stream's `session_id`; nil before the first START.
        public var sessionId: Int32?
        public var state: State
        /// The car's window in DATA messages (CONFIG `max_unacked`, at least 1).
        public var windowSize: Int
        /// DATA messages of the current stream not acknowledged yet.
        public var outstanding: Int
        /// Whether DATA goes without waiting for ACKs.
        public var ackless: Bool
    }

    public var statistics: Statistics {
        Statistics(
            packetsSent: packetsSent, bytesSent: bytesSent, acks: acks, underflows: underflows, dropped: dropped,
            sessionId: sessionId, state: state, windowSize: windowSize, outstanding: outstanding, ackless: ackless)
    }

    /// How many DATA messages may go now: 0 unless a stream runs (after CONFIG READY, between
    /// START and STOP); the free part of the car's window; `Int.max` when ackless (then only the
    /// driver's pacing limits it).
    public var sendableCount: Int {
        guard state == .started else { return 0 }
        return ackless ? .max : max(0, windowSize - outstanding)
    }

    /// Whether one DATA message may go now (``sendableCount`` > 0).
    public var canSend: Bool { sendableCount > 0 }

    /// Offers the pump's next packet: one DATA message (8-byte big-endian µs timestamp + the PCM,
    /// attenuated while ducked) when ``canSend``; otherwise nothing is sent and a debug line says
    /// why (the driver should have asked ``canSend`` and counted the packet as dropped).
    public mutating func send(packet: AudioPacket, now: Duration) -> [Action] {
        guard canSend else {
            let why = state == .started ? "the car's window of \(windowSize) is full" : "no stream runs (\(state))"
            return [.log(AAPServiceLog(level: .debug, message: "audio packet not sent: \(why)"))]
        }
        if !ackless, !ackedSinceStart, ackDeadline == nil {
            ackDeadline = now + configuration.ackTimeout
        }
        let body: [UInt8]
        if gain < 1 {
            var scaled = [UInt8]()
            scaled.reserveCapacity(packet.body.count)
            withUnsafeBytes(of: packet.timestampMicros.bigEndian) { scaled.append(contentsOf: $0) }
            Self.appendScaled(packet.pcm, gain: gain, to: &scaled)
            body = scaled
        } else {
            body = packet.body  // shared by every car at full gain
        }
        if !ackless { outstanding += 1 }
        packetsSent += 1
        bytesSent += body.count
        return [.send(OutgoingMessage(channel: channel, messageId: UInt16(aap: AAP.MediaMessageId.data.rawValue), body: body))]
    }

    /// The driver skipped `count` packets for this car (its window was full); counted only.
    public mutating func dropped(count: Int) {
        dropped += max(0, count)
    }

    /// Appends `pcm` (S16LE samples) to `body`, each sample times `gain` (0…1), rounded to the
    /// nearest; a trailing odd byte is copied as it is.
    static func appendScaled(_ pcm: [UInt8], gain: Double, to body: inout [UInt8]) {
        // Q15 fixed point: |sample × factor| < 2^30, far from Int32's range, and the result stays
        // within Int16 because the factor is at most 2^15 (gain 1).
        let factor = Int32((min(1, max(0, gain)) * 32_768).rounded())
        var index = pcm.startIndex
        while index + 1 < pcm.endIndex {
            let sample = Int32(Int16(bitPattern: UInt16(pcm[index]) | UInt16(pcm[index + 1]) << 8))
            let scaled = UInt16(bitPattern: Int16(clamping: (sample * factor + 16_384) >> 15))
            body.append(UInt8(truncatingIfNeeded: scaled))
            body.append(UInt8(truncatingIfNeeded: scaled >> 8))
            index += 2
        }
        if index < pcm.endIndex { body.append(pcm[index]) }
    }
}
