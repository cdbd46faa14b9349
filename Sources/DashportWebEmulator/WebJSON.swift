/// A JSON value the web glue sends to the page (events and API answers), written without
/// Foundation's `Any`: objects keep their key order, so the page and tests see stable text.
public enum WebJSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([WebJSON])
    case object([(String, WebJSON)])

    public static func == (a: WebJSON, b: WebJSON) -> Bool { a.text == b.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// An object of the pairs whose value is not nil.
    static func object(_ pairs: KeyValuePairs<String, WebJSON?>) -> WebJSON {
        .object(pairs.compactMap { key, value in value.map { (key, $0) } })
    }

    static func opt(_ text: String?) -> WebJSON? { text.map { .string($0) } }
    static func opt<T: BinaryInteger>(_ value: T?) -> WebJSON? { value.map { .int(Int64(clamping: $0)) } }
    static func opt(_ value: Bool?) -> WebJSON? { value.map { .bool($0) } }
    static func opt(_ value: Double?) -> WebJSON? { value.map { .double($0) } }
    /// An enum case by its Swift name: `grid`, `categoryList`, `authenticationExpired`.
    static func name<T>(_ value: T?) -> WebJSON? { value.map { .string("\($0)") } }

    /// The value as compact JSON text.
    public var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    public var bytes: [UInt8] { Array(text.utf8) }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value):
            // JSON has no NaN or infinity.
            if !value.isFinite {
                out += "null"
            } else if value == value.rounded(), abs(value) < 1e15 {
                out += String(Int64(value))
            } else {
                out += "\(value)"
            }
        case .string(let text): WebJSON.quote(text, into: &out)
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let pairs):
            out += "{"
            for (index, (key, value)) in pairs.enumerated() {
                if index > 0 { out += "," }
                WebJSON.quote(key, into: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    /// A JSON string; `<` and `>` escaped too, so the text is safe anywhere in a page.
    static func quote(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "<", ">", "&", "\u{2028}", "\u{2029}": out += unicodeEscape(scalar.value)
            default:
                if scalar.value < 0x20 { out += unicodeEscape(scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        out += "\""
    }

    private static func unicodeEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
