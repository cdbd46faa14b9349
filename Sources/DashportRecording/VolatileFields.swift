public import DashportMessages

/// The fields of a recording whose values differ from run to run, and how a replay compares them.
///
/// Each recording's header declares them (`"volatile"`), and the replayer uses the header's
/// declaration, so a recording can add its own. Two kinds:
/// - `skip`: message names (`pingRequest`) that are recorded but not matched at all: how many a
///   session has depends on time.
/// - `fields`: per message name, dotted JSON paths (array indices left out: `items.artworkKey`
///   means that field of every element). Such a field must be present in the replayed message
///   exactly when it is in the recorded one; its value is not compared.
public struct VolatileFields: Sendable, Hashable {
    public var skip: Set<String>
    /// Message names the server may push again with nothing but volatile fields changed (the AAP
    /// `status`, re-sent while playing as the elapsed seconds move; `playbackState`, re-anchored
    /// on the frames the audio pump has pulled, which depends on when the pump ran): in both the
    /// recorded and the replayed stream, a message equal to the one before it in its stream counts
    /// once.
    public var repeatable: Set<String>
    public var fields: [String: Set<String>]

    public init(skip: Set<String>, repeatable: Set<String> = [], fields: [String: Set<String>]) {
        self.skip = skip
        self.repeatable = repeatable
        self.fields = fields
    }

    /// What every new recording declares: pings as a whole; the AAP playback status service's
    /// `metadata` push as a whole (it goes out when the item's cover has been scaled, in the
    /// background, so how many arrive before the session ends depends on timing); the position
    /// anchor's value and time (they follow the wall clock while playing), when a state was sent,
    /// the server's version, the encoded image bytes (they depend on the libvips build), the
    /// AAP status's elapsed seconds and the car's key-event timestamps. Nothing else in Dashport's answers depends on time.
    public static let standard = VolatileFields(
        skip: ["pingRequest", "pingResponse", "metadata"],
        repeatable: ["playbackState", "status"],
        fields: [
            "serverHello": ["serverVersion"],
            "playbackState": ["position.valueMs", "position.atMs", "sentAtMs"],
            "artworkResult": ["image.data"],
            "sleepTimerState": ["remainingMs", "sentAtMs"],
            "sleepTimerFired": ["atMs"],
            "status": ["playbackSeconds"],
            "metadata": ["albumArt"],
            "inputReport": ["timestamp"],
        ])

    /// Whether `body` only repeats `previous` (same stream, a ``repeatable`` message).
    public func isRepeat(message: String, _ body: JSONValue, after previous: JSONValue?) -> Bool {
        guard repeatable.contains(message), let previous else { return false }
        return BodyComparison.differences(expected: previous, actual: body, message: message, volatile: self).isEmpty
    }

    public func isVolatile(message: String, path: [String]) -> Bool {
        fields[message]?.contains(path.joined(separator: ".")) ?? false
    }

    var jsonValue: JSONValue {
        .object([
            JSONMember("skip", .array(skip.sorted().map { .string($0) })),
            JSONMember("repeatable", .array(repeatable.sorted().map { .string($0) })),
            JSONMember(
                "fields",
                .object(
                    fields.keys.sorted().map { name in
                        JSONMember(name, .array((fields[name] ?? []).sorted().map { .string($0) }))
                    })),
        ])
    }

    init(json: JSONValue) throws(JSONDecodingError) {
        skip = Set(try JSONFields.decodeArray(json["skip"] ?? .array([]), path: "volatile.skip", as: String.self))
        repeatable = Set(try JSONFields.decodeArray(json["repeatable"] ?? .array([]), path: "volatile.repeatable", as: String.self))
        fields = [:]
        if case .object(let members)? = json["fields"] {
            for member in members {
                fields[member.key] = Set(try JSONFields.decodeArray(member.value, path: "volatile.fields.\(member.key)", as: String.self))
            }
        }
    }
}

/// One difference between a recorded and a replayed body.
public struct FieldDifference: Sendable, Hashable, CustomStringConvertible {
    /// `items[2].title`, or `(body)` for the whole body.
    public var path: String
    public var expected: String
    public var actual: String

    public init(path: String, expected: String, actual: String) {
        self.path = path
        self.expected = expected
        self.actual = actual
    }

    public var description: String { "\(path): recorded \(expected), replayed \(actual)" }
}

/// Compares two bodies field by field, skipping the values of volatile fields.
public enum BodyComparison {
    public static func differences(expected: JSONValue, actual: JSONValue, message: String, volatile: VolatileFields) -> [FieldDifference] {
        var out: [FieldDifference] = []
        compare(expected, actual, shown: "", path: [], message: message, volatile: volatile, into: &out)
        return out
    }

    private static func compare(
        _ expected: JSONValue, _ actual: JSONValue, shown: String, path: [String], message: String,
        volatile: VolatileFields, into out: inout [FieldDifference]
    ) {
        if !path.isEmpty, volatile.isVolatile(message: message, path: path) { return }
        switch (expected, actual) {
        case (.object(let left), .object(let right)):
            for member in left {
                let childShown = shown.isEmpty ? member.key : shown + "." + member.key
                if let other = right.first(where: { $0.key == member.key }) {
                    compare(
                        member.value, other.value, shown: childShown, path: path + [member.key], message: message, volatile: volatile,
                        into: &out)
                } else {
                    out.append(FieldDifference(path: childShown, expected: short(member.value), actual: "(absent)"))
                }
            }
            for member in right where !left.contains(where: { $0.key == member.key }) {
                out.append(
                    FieldDifference(
                        path: shown.isEmpty ? member.key : shown + "." + member.key,
                        expected: "(absent)", actual: short(member.value)))
            }
        case (.array(let left), .array(let right)):
            if left.count != right.count {
                out.append(FieldDifference(path: shown + ".count", expected: "\(left.count)", actual: "\(right.count)"))
            }
            for index in 0..<min(left.count, right.count) {
                compare(
                    left[index], right[index], shown: "\(shown)[\(index)]", path: path, message: message, volatile: volatile, into: &out)
            }
        default:
            if expected != actual {
                out.append(FieldDifference(path: shown.isEmpty ? "(body)" : shown, expected: short(expected), actual: short(actual)))
            }
        }
    }

    static func short(_ value: JSONValue) -> String {
        let text = value.description
        return text.count > 120 ? String(text.prefix(117)) + "..." : text
    }
}
