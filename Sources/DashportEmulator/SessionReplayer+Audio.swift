import DashportLink
import DashportMessages
import DashportRecording

/// Audio in a replay: the server's DATA on the car's audio sinks is summarised the way the
/// recorder did (``AudioSummary``) and each full summary compared with the recorded one of the
/// same number: packets, bytes and the PCM's CRC-32, independent of timing. The replayed car does
/// not ACK (the recording holds no ACKs, only their count).
extension ReplayRun {
    mutating func hearAudio(_ message: TappedMessage, car: Int) {
        let key = StreamKey(car: car, channel: message.channel, messageId: message.messageId)
        var tally = heardAudio[key] ?? AudioSummary.Tally()
        if tally.isFull {
            compare(tally, key)
            tally = AudioSummary.Tally(index: tally.index + 1)
        }
        tally.add(data: message.body)
        heardAudio[key] = tally
    }

    /// At the end: the last full summaries compared, and about as much audio heard as recorded
    /// (one summary more or less: where a session ends depends on timing).
    mutating func compareAudioTotals() {
        for key in Set(recordedAudio.keys).union(heardAudio.keys).sorted(by: { ($0.car, $0.channel) < ($1.car, $1.channel) }) {
            let recorded = recordedAudio[key]?.count ?? 0
            let tally = heardAudio[key]
            if let tally, tally.isFull { compare(tally, key) }
            let heard = tally.map { $0.index + 1 } ?? 0
            if abs(recorded - heard) > 1 {
                report.failures.append(
                    ReplayFailure(
                        step: "car \(key.car), audio on channel \(key.channel)",
                        problem: "heard \(heard) audio summaries (about 1 s each), the recording has \(recorded)", differences: []))
            }
        }
    }

    private mutating func compare(_ tally: AudioSummary.Tally, _ key: StreamKey) {
        guard let indices = recordedAudio[key], indices.indices.contains(tally.index) else { return }
        let entry = recording.entries[indices[tally.index]]
        // A recorded summary that was not full (the session ended in it) is compared by count only.
        guard case .number(let packets)? = entry.body["packets"], Int(packets) == AudioSummary.packetsPerSummary else { return }
        report.compared += 1
        let problems = tally.differences(from: entry.body)
        if !problems.isEmpty {
            report.failures.append(
                ReplayFailure(
                    step: entry.title, problem: "audio summary \(tally.index) differs",
                    differences: problems))
        }
    }
}
