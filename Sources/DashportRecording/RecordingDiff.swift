/// How a new recording differs from an old one, for people deciding whether to overwrite
/// (`dashport-hu record` on an existing file). Messages are compared the way a replay matches
/// them: per stream (car, direction, channel, message id), the n-th with the n-th, so pushes that
/// interleave differently are not differences. Times, skipped messages and volatile fields are
/// ignored, in both directions.
public enum RecordingDiff {
    struct Stream: Hashable, Comparable {
        var car: Int
        var direction: String
        var channel: UInt8
        var messageId: UInt16

        static func < (a: Stream, b: Stream) -> Bool {
            (a.car, a.direction, a.channel, a.messageId) < (b.car, b.direction, b.channel, b.messageId)
        }
    }

    public static func differences(old: SessionRecording, new: SessionRecording, limit: Int = 40) -> [String] {
        let before = streams(old)
        let after = streams(new)
        var out: [String] = []
        if old.volatile != new.volatile { out.append("header: the volatile declaration changed") }
        if old.description != new.description { out.append("header: description was \"\(old.description)\", now \"\(new.description)\"") }
        for stream in Set(before.keys).union(after.keys).sorted() where out.count < limit {
            let left = before[stream] ?? []
            let right = after[stream] ?? []
            let label = Self.label(left.first ?? right[0])
            if left.count != right.count {
                out.append("\(label): \(left.count) recorded before, \(right.count) now")
            }
            for index in 0..<min(left.count, right.count) {
                let fields = BodyComparison.differences(
                    expected: left[index].body, actual: right[index].body,
                    message: left[index].name, volatile: old.volatile)
                guard !fields.isEmpty else { continue }
                out.append("\(label) #\(index + 1) (old line \(left[index].line)):")
                out += fields.map { "    \($0.path): was \($0.expected), now \($0.actual)" }
            }
        }
        if out.count >= limit { out.append("... (more differences not shown)") }
        return out
    }

    static func streams(_ recording: SessionRecording) -> [Stream: [RecordedMessage]] {
        var out: [Stream: [RecordedMessage]] = [:]
        for entry in recording.entries where !recording.volatile.skip.contains(entry.name) {
            let stream = Stream(car: entry.car, direction: entry.direction.rawValue, channel: entry.channel, messageId: entry.messageId)
            if recording.volatile.isRepeat(message: entry.name, entry.body, after: out[stream]?.last?.body) { continue }
            out[stream, default: []].append(entry)
        }
        return out
    }

    static func label(_ entry: RecordedMessage) -> String {
        "car \(entry.car) \(entry.direction == .car ? "→" : "←") \(entry.service.rawValue) \(entry.name)"
    }
}
