/// How a new recording differs from an old one, line by line, for people deciding whether to
/// overwrite (`dashport-hu record` on an existing file). Times and volatile fields are ignored.
public enum RecordingDiff {
    public static func differences(old: SessionRecording, new: SessionRecording, limit: Int = 40) -> [String] {
        var out: [String] = []
        let count = max(old.entries.count, new.entries.count)
        for index in 0..<count where out.count < limit {
            let before = index < old.entries.count ? old.entries[index] : nil
            let after = index < new.entries.count ? new.entries[index] : nil
            guard let before, let after else {
                let entry = before ?? after
                out.append("message \(index + 1): \(before == nil ? "new" : "gone"): \(entry.map(label) ?? "")")
                continue
            }
            if before.car != after.car || before.direction != after.direction || before.channel != after.channel
                || before.messageId != after.messageId {
                out.append("message \(index + 1): was \(label(before)), now \(label(after))")
                continue
            }
            if before.direction == .server, old.volatile.skip.contains(before.name) { continue }
            let fields = BodyComparison.differences(expected: before.body, actual: after.body, message: before.name, volatile: old.volatile)
            if !fields.isEmpty {
                out.append("message \(index + 1) (\(label(before))):")
                out += fields.map { "    \($0.path): was \($0.expected), now \($0.actual)" }
            }
        }
        if out.count >= limit { out.append("... (more differences not shown)") }
        return out
    }

    static func label(_ entry: RecordedMessage) -> String {
        "car \(entry.car) \(entry.direction == .car ? "→" : "←") \(entry.service.rawValue) \(entry.name)"
    }
}
