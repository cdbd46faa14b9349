// Sources/DashportMessages/JSON/JSONParser.swift - JSON text to JSONValue (RFC 8259, strict).

extension JSONValue {
    /// Parses one JSON text. Strict: no trailing commas, no comments, nothing after the value;
    /// nesting is capped at 64 levels.
    public init(parsing text: String) throws(JSONDecodingError) {
        var parser = JSONTextParser(Array(text.utf8))
        self = try parser.document()
    }
}

private struct JSONTextParser {
    let bytes: [UInt8]
    var index = 0
    static let maxDepth = 64

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func document() throws(JSONDecodingError) -> JSONValue {
        let value = try parseValue(depth: 0)
        skipSpace()
        guard index == bytes.count else { throw fail("unexpected text after the value") }
        return value
    }

    func fail(_ problem: String) -> JSONDecodingError {
        JSONDecodingError(path: "character \(index + 1)", problem: problem)
    }

    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func expect(_ literal: String) throws(JSONDecodingError) {
        for byte in literal.utf8 {
            guard index < bytes.count, bytes[index] == byte else { throw fail("expected \(literal)") }
            index += 1
        }
    }

    mutating func parseValue(depth: Int) throws(JSONDecodingError) -> JSONValue {
        guard depth < Self.maxDepth else { throw fail("nested deeper than \(Self.maxDepth) levels") }
        skipSpace()
        guard index < bytes.count else { throw fail("unexpected end of text") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        default: return .number(try parseNumber())
        }
    }

    mutating func parseObject(depth: Int) throws(JSONDecodingError) -> JSONValue {
        index += 1
        var members: [JSONMember] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object([])
        }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key") }
            let key = try parseString()
            skipSpace()
            try expect(":")
            members.append(JSONMember(key, try parseValue(depth: depth + 1)))
            skipSpace()
            guard index < bytes.count else { throw fail("unexpected end of text in an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect("}")
            return .object(members)
        }
    }

    mutating func parseArray(depth: Int) throws(JSONDecodingError) -> JSONValue {
        index += 1
        var values: [JSONValue] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array([])
        }
        while true {
            values.append(try parseValue(depth: depth + 1))
            skipSpace()
            guard index < bytes.count else { throw fail("unexpected end of text in an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect("]")
            return .array(values)
        }
    }

    mutating func parseNumber() throws(JSONDecodingError) -> String {
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            return index - from
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard digits() > 0 else { throw fail("expected a value") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw fail("expected digits after the decimal point") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw fail("expected exponent digits") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    mutating func parseString() throws(JSONDecodingError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var run = index
        func flush(_ end: Int) {
            scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars)
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                flush(index)
                index += 1
                return String(scalars)
            }
            guard byte >= 0x20 else { throw fail("control character in a string") }
            if byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            flush(index)
            index += 1
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code) {
                    try expect("\\u")
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw fail("invalid \\u escape") }
                scalars.append(scalar)
            default: throw fail("invalid escape")
            }
            run = index
        }
        throw fail("unterminated string")
    }

    mutating func hex4() throws(JSONDecodingError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("short \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            guard let digit = Self.hexDigit(byte) else { throw fail("invalid \\u escape") }
            value = value << 4 | digit
        }
        index += 4
        return value
    }

    static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 0x30...0x39: UInt32(byte - 0x30)
        case 0x41...0x46: UInt32(byte - 0x41 + 10)
        case 0x61...0x66: UInt32(byte - 0x61 + 10)
        default: nil
        }
    }
}
