import DashportLink
import DashportMessages

extension MediaSinkClient {
    /// DATA: acknowledged (unless ackless), checked against the playout clock, decoded and handed on.
    mutating func receiveData(_ body: [UInt8], now: Duration, _ out: inout [MediaSinkOutput]) {
        guard body.count >= 8 else {
            stats.malformed += 1
            violation("DATA of \(body.count) bytes has no 8-byte timestamp; dropped", &out)
            return
        }
        let timestamp = body.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let pcm = body.dropFirst(8)
        guard let sessionId = stats.sessionId else {
            stats.dataOutsideSession += 1
            violation("DATA outside START…STOP (\(pcm.count) bytes); dropped", &out)
            acknowledge(sessionId: -1, now: now, &out)  // openauto's session id outside a stream
            return
        }
        acknowledge(sessionId: sessionId, now: now, &out)
        stats.packets += 1
        stats.bytes += pcm.count
        stats.lastTimestampUs = timestamp
        sessionPackets += 1

        let channels = max(1, Int(format.numberOfChannels))
        let bytesPerFrame = 2 * channels
        if format.numberOfBits != 16 { violation("the stream's format says \(format.numberOfBits) bits; read as 16", &out) }
        if pcm.count % bytesPerFrame != 0 {
            violation("DATA of \(pcm.count) PCM bytes is not whole \(bytesPerFrame)-byte frames; the tail is dropped", &out)
        }
        let frames = pcm.count / bytesPerFrame
        let rate = Int64(max(1, format.samplingRate))
        let duration = Duration.nanoseconds(Int64(frames) * 1_000_000_000 / rate)
        stats.audioReceived += duration
        checkPlayout(sessionId: sessionId, adding: duration, now: now, &out)

        let samples = WAVHeader.samples(littleEndian: pcm.prefix(frames * bytesPerFrame))
        retain(samples, channels: channels)
        out.append(.samples(samples))
    }

    /// The playout model: audio plays from the first DATA of a session at real-time speed; a DATA
    /// that comes after everything received so far has played out is an underflow, and the clock
    /// restarts at that arrival (the device starts again from an empty buffer).
    private mutating func checkPlayout(sessionId: Int32, adding duration: Duration, now: Duration, _ out: inout [MediaSinkOutput]) {
        if let lead = lead(at: now) {
            if lead < .zero - configuration.underflowTolerance {
                stats.underflows += 1
                out.append(.event(.underflow(sessionId: sessionId, late: .zero - lead)))
                if configuration.sendsUnderflowNotifications {
                    let body = AAP.AudioUnderflowNotification(sessionId: sessionId).serializedBytes()
                    sendOnSink(AAP.MediaMessageId.audioUnderflowNotification, body, &out)
                }
                playoutAnchor = now
                bufferedSinceAnchor = .zero
            }
        } else {
            playoutAnchor = now
            bufferedSinceAnchor = .zero
        }
        bufferedSinceAnchor += duration
    }

    private mutating func acknowledge(sessionId: Int32, now: Duration, _ out: inout [MediaSinkOutput]) {
        guard configuration.sendsAcks else { return }
        let stamp = Self.nanoseconds(now + configuration.epochOffset)
        let ack = AAP.MediaAck(sessionId: sessionId, ack: 1, receiveTimestampNs: [stamp])
        sendOnSink(AAP.MediaMessageId.ack, ack.serializedBytes(), &out)
        if channel != nil { stats.acksSent += 1 }
    }

    private mutating func retain(_ samples: [Int16], channels: Int) {
        let limit = max(0, configuration.retainedFrames) * channels
        guard limit > 0 else { return }
        if samples.count >= limit {
            recentSamples = Array(samples.suffix(limit))
        } else {
            recentSamples.append(contentsOf: samples)
            if recentSamples.count > limit { recentSamples.removeFirst(recentSamples.count - limit) }
        }
    }

    /// Whole nanoseconds of a non-negative duration, saturating.
    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole &+ UInt64(attoseconds / 1_000_000_000)
    }
}
