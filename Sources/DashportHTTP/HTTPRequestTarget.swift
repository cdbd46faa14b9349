/// The request target of a request line, in origin form (`/path?query`), turned into a normalised
/// path and decoded query pairs. Nothing a path says can reach outside the server's route table:
/// the path is only ever compared with it, and a path that climbs above the root (`/../x`,
/// `/%2e%2e/x`) or hides a separator or a control byte in an escape is refused.
public enum HTTPRequestTarget {
    /// `(path, query)`; throws 400 for an absolute or authority form, `*`, a fragment, a bad
    /// escape, invalid UTF-8, `%2F` or `\` in a segment, a control byte (path or query), or a climb above the root.
    public static func parse(_ target: String) throws(HTTPParseError) -> (String, [(name: String, value: String)]) {
        guard target.hasPrefix("/") else {
            if target == "*" { throw HTTPParseError(400, "the asterisk form (OPTIONS *) is not served") }
            throw HTTPParseError(
                400, "the request target \"\(target.prefix(64))\" is not a path (absolute and authority forms are not served)")
        }
        if target.contains("#") { throw HTTPParseError(400, "a fragment (#) in the request target") }
        let pathPart: Substring
        let queryPart: Substring?
        if let mark = target.firstIndex(of: "?") {
            pathPart = target[..<mark]
            queryPart = target[target.index(after: mark)...]
        } else {
            pathPart = target[...]
            queryPart = nil
        }
        return (try normalisedPath(pathPart), try queryPart.map(parseQuery) ?? [])
    }

    /// Segments decoded one by one; `.` and empty segments dropped, `..` removes the one before.
    static func normalisedPath(_ text: Substring) throws(HTTPParseError) -> String {
        var segments: [String] = []
        for raw in text.split(separator: "/", omittingEmptySubsequences: true) {
            let bytes = try decode(raw, plusIsSpace: false)
            if bytes.contains(UInt8(ascii: "/")) || bytes.contains(UInt8(ascii: "\\")) {
                throw HTTPParseError(400, "a path segment with an escaped / or a \\")
            }
            if bytes.contains(where: { $0 < 32 || $0 == 127 }) { throw HTTPParseError(400, "a path with a control byte") }
            guard let segment = String(validating: bytes, as: UTF8.self) else {
                throw HTTPParseError(400, "a path that is not UTF-8")
            }
            switch segment {
            case ".": continue
            case "..":
                guard !segments.isEmpty else { throw HTTPParseError(400, "the path climbs above the root") }
                segments.removeLast()
            default: segments.append(segment)
            }
        }
        return "/" + segments.joined(separator: "/")
    }

    /// `a=1&b=two+words&c`: pairs in order; a name without `=` has an empty value.
    static func parseQuery(_ query: Substring) throws(HTTPParseError) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            let equals = item.firstIndex(of: "=")
            let name = try text(equals.map { item[..<$0] } ?? item)
            var value = ""
            if let equals { value = try text(item[item.index(after: equals)...]) }
            pairs.append((name, value))
        }
        return pairs

        func text(_ part: Substring) throws(HTTPParseError) -> String {
            let bytes = try decode(part, plusIsSpace: true)
            // A NUL would end the string in the protobuf-c messages the values become (ids, queries).
            if bytes.contains(where: { $0 < 32 || $0 == 127 }) { throw HTTPParseError(400, "a query with a control byte") }
            guard let decoded = String(validating: bytes, as: UTF8.self) else {
                throw HTTPParseError(400, "a query that is not UTF-8")
            }
            return decoded
        }
    }

    /// Percent escapes decoded (`%41` is `A`); a `%` without two hex digits is refused.
    static func decode(_ text: Substring, plusIsSpace: Bool) throws(HTTPParseError) -> [UInt8] {
        let source = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(source.count)
        var index = 0
        while index < source.count {
            let byte = source[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < source.count, let high = hexValue(source[index + 1]), let low = hexValue(source[index + 2]) else {
                    throw HTTPParseError(400, "a % escape without two hex digits")
                }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? 32 : byte)
                index += 1
            }
        }
        return bytes
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
