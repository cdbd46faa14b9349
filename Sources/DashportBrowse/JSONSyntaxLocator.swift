// Sources/DashportBrowse/JSONSyntaxLocator.swift - where a JSON text first goes wrong, as line and column.

/// Finds the first syntax error in a JSON text and says where it is (line and column, 1-based)
/// and what was expected there, because Foundation's decoder only says "not valid JSON" (and for a
/// truncated file not even where). It checks syntax only (RFC 8259 grammar, nesting capped), not
/// the catalog's shape, and it never allocates per byte: a 16 MiB catalog is one pass.
package enum JSONSyntaxLocator {
    /// Nesting deeper than this is reported as an error (the decoder would refuse it anyway).
    package static let maxDepth = 512

    package struct Failure: Equatable, CustomStringConvertible {
        package var line: Int
        package var column: Int
        package var reason: String
        package var description: String { "line \(line), column \(column): \(reason)" }
    }

    /// The first syntax error in `bytes`, or nil when the text is well-formed JSON.
    package static func firstError(in bytes: [UInt8]) -> Failure? {
        var scanner = Scanner(bytes: bytes)
        guard let (offset, reason) = scanner.document() else { return nil }
        return locate(offset, in: bytes, reason: reason)
    }

    /// Line and column (in characters, not bytes) of byte `offset`.
    static func locate(_ offset: Int, in bytes: [UInt8], reason: String) -> Failure {
        var line = 1
        var column = 1
        for byte in bytes[..<min(offset, bytes.count)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {  // not a UTF-8 continuation byte: a new character
                column += 1
            }
        }
        return Failure(line: line, column: column, reason: reason)
    }

    private struct Scanner {
        let bytes: [UInt8]
        var at = 0
        var depth = 0

        typealias Problem = (offset: Int, reason: String)

        mutating func document() -> Problem? {
            if let problem = value() { return problem }
            skipSpace()
            return at < bytes.count ? (at, "unexpected \(shown(bytes[at])) after the end of the document") : nil
        }

        private var endOfFile: Problem { (at, "the file ends in the middle of the JSON (truncated?)") }

        private mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        private mutating func value() -> Problem? {
            skipSpace()
            guard at < bytes.count else { return endOfFile }
            switch bytes[at] {
            case UInt8(ascii: "{"): return container(close: UInt8(ascii: "}"), keyed: true)
            case UInt8(ascii: "["): return container(close: UInt8(ascii: "]"), keyed: false)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            default: return (at, "expected a value, found \(shown(bytes[at]))")
            }
        }

        private mutating func container(close: UInt8, keyed: Bool) -> Problem? {
            depth += 1
            defer { depth -= 1 }
            guard depth <= JSONSyntaxLocator.maxDepth else { return (at, "nested deeper than \(JSONSyntaxLocator.maxDepth) levels") }
            at += 1
            skipSpace()
            guard at < bytes.count else { return endOfFile }
            if bytes[at] == close {
                at += 1
                return nil
            }
            while true {
                if keyed {
                    skipSpace()
                    guard at < bytes.count else { return endOfFile }
                    guard bytes[at] == UInt8(ascii: "\"") else { return (at, "expected a \"key\" in quotes, found \(shown(bytes[at]))") }
                    if let problem = string() { return problem }
                    skipSpace()
                    guard at < bytes.count else { return endOfFile }
                    guard bytes[at] == UInt8(ascii: ":") else { return (at, "expected ':' after the key, found \(shown(bytes[at]))") }
                    at += 1
                }
                if let problem = value() { return problem }
                skipSpace()
                guard at < bytes.count else { return endOfFile }
                if bytes[at] == close {
                    at += 1
                    return nil
                }
                guard bytes[at] == UInt8(ascii: ",") else {
                    return (at, "expected ',' or '\(Character(Unicode.Scalar(close)))', found \(shown(bytes[at]))")
                }
                at += 1
                skipSpace()
                if at < bytes.count, bytes[at] == close { return (at, "a trailing ',' before '\(Character(Unicode.Scalar(close)))'") }
            }
        }

        private mutating func string() -> Problem? {
            let start = at
            at += 1
            while at < bytes.count {
                let byte = bytes[at]
                switch byte {
                case UInt8(ascii: "\""):
                    at += 1
                    return nil
                case UInt8(ascii: "\\"):
                    at += 1
                    guard at < bytes.count else { return endOfFile }
                    if bytes[at] == UInt8(ascii: "u") {
                        for _ in 0..<4 {
                            at += 1
                            guard at < bytes.count else { return endOfFile }
                            guard isHexDigit(bytes[at]) else { return (at, "expected 4 hex digits after \\u") }
                        }
                    } else if !Array("\"\\/bfnrt".utf8).contains(bytes[at]) {
                        return (at, "unknown escape \\\(Character(Unicode.Scalar(bytes[at])))")
                    }
                    at += 1
                case 0..<0x20: return (at, "a control character inside a string (the string opened at \(opened(start)))")
                default: at += 1
                }
            }
            return (at, "the file ends inside a string (opened at \(opened(start)))")
        }

        private mutating func literal(_ word: String) -> Problem? {
            for expected in word.utf8 {
                guard at < bytes.count else { return endOfFile }
                guard bytes[at] == expected else { return (at, "expected '\(word)'") }
                at += 1
            }
            return nil
        }

        private mutating func number() -> Problem? {
            if bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard digits() else { return at < bytes.count ? (at, "expected a digit, found \(shown(bytes[at]))") : endOfFile }
            if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
                at += 1
                guard digits() else { return (at, "expected a digit after '.'") }
            }
            if at < bytes.count, bytes[at] | 0x20 == UInt8(ascii: "e") {
                at += 1
                if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
                guard digits() else { return (at, "expected a digit in the exponent") }
            }
            return nil
        }

        private mutating func digits() -> Bool {
            let start = at
            while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 }
            return at > start
        }

        private func isHexDigit(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
        }

        private func opened(_ offset: Int) -> String {
            let place = JSONSyntaxLocator.locate(offset, in: bytes, reason: "")
            return "line \(place.line), column \(place.column)"
        }

        private func shown(_ byte: UInt8) -> String {
            (0x21..<0x7F).contains(byte)
                ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        }
    }
}
