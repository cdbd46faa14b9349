// Sources/DashportMessages/JSON/JSONMessage.swift - the JSON form of generated messages.
//
// The mapping follows proto3's JSON mapping where it can: lowerCamelCase field names, enum values
// by name, bytes as base64, absent optional fields and empty repeated fields left out. Differences:
// enum names are the Swift names (`authenticationExpired`), a value the schema does not name is
// written as its number, and 64-bit integers are plain JSON numbers (their text is kept exactly).
// tools/generate/protoc-gen-dashport-swift writes every message's conformance; nothing here is
// per message.

/// A value that has a JSON form: scalars, strings, generated enums and messages.
public protocol JSONField: Sendable {
    /// The JSON form.
    var jsonValue: JSONValue { get }
    /// Reads the JSON form; `path` names the field for errors (`GetChildren.page`).
    init(json: JSONValue, path: String) throws(JSONDecodingError)
}

/// A generated message with a JSON form (every message of `Protocols/*.proto`).
public protocol JSONMessage: WireMessage, JSONField {}

extension JSONMessage {
    /// Reads the JSON form; errors name the field path from the message's own name.
    public init(json: JSONValue) throws(JSONDecodingError) {
        try self.init(json: json, path: String(describing: Self.self))
    }
}

/// A generated enum: written by its Swift name, or its number when the schema does not name it.
public protocol JSONEnum: JSONField, RawRepresentable, CustomStringConvertible where RawValue == Int32 {
    static var knownValues: [Self] { get }
    init(rawValue: Int32)
}

extension JSONEnum {
    public var jsonValue: JSONValue {
        Self.knownValues.contains { $0.rawValue == rawValue } ? .string(description) : .number(String(rawValue))
    }

    public init(json: JSONValue, path: String) throws(JSONDecodingError) {
        switch json {
        case .string(let name):
            guard let known = Self.knownValues.first(where: { $0.description == name }) else {
                throw JSONDecodingError(path: path, problem: "\(name) is not a value of \(Self.self)")
            }
            self = known
        case .number(let text):
            guard let raw = Int32(text) else { throw JSONDecodingError(path: path, problem: "\(text) is not an Int32") }
            self.init(rawValue: raw)
        default:
            throw JSONDecodingError(path: path, problem: "expected an enum name or number, found \(json)")
        }
    }
}

extension Bool: JSONField {
    public var jsonValue: JSONValue { .bool(self) }
    public init(json: JSONValue, path: String) throws(JSONDecodingError) {
        guard case .bool(let value) = json else { throw JSONDecodingError(path: path, problem: "expected true or false, found \(json)") }
        self = value
    }
}

extension String: JSONField {
    public var jsonValue: JSONValue { .string(self) }
    public init(json: JSONValue, path: String) throws(JSONDecodingError) {
        guard case .string(let value) = json else { throw JSONDecodingError(path: path, problem: "expected a string, found \(json)") }
        self = value
    }
}

/// Integers: JSON numbers; a quoted number (proto3's form for 64-bit values) is read too.
protocol JSONInteger: JSONField, FixedWidthInteger, LosslessStringConvertible {}

extension JSONInteger {
    public var jsonValue: JSONValue { .number(String(self)) }
    public init(json: JSONValue, path: String) throws(JSONDecodingError) {
        switch json {
        case .number(let text), .string(let text):
            guard let value = Self(text) else { throw JSONDecodingError(path: path, problem: "\(text) is not a \(Self.self)") }
            self = value
        default:
            throw JSONDecodingError(path: path, problem: "expected a number, found \(json)")
        }
    }
}

extension Int32: JSONInteger {}
extension UInt32: JSONInteger {}
extension Int64: JSONInteger {}
extension UInt64: JSONInteger {}

/// Floating point: JSON numbers, and the strings `NaN`, `Infinity`, `-Infinity` for the rest.
protocol JSONFloatingPoint: JSONField, BinaryFloatingPoint, LosslessStringConvertible {}

extension JSONFloatingPoint {
    public var jsonValue: JSONValue {
        if isNaN { return .string("NaN") }
        if isInfinite { return .string(self < 0 ? "-Infinity" : "Infinity") }
        return .number(description)
    }

    public init(json: JSONValue, path: String) throws(JSONDecodingError) {
        switch json {
        case .string("NaN"): self = .nan
        case .string("Infinity"): self = .infinity
        case .string("-Infinity"): self = -.infinity
        case .number(let text):
            guard let value = Self(text) else { throw JSONDecodingError(path: path, problem: "\(text) is not a \(Self.self)") }
            self = value
        default:
            throw JSONDecodingError(path: path, problem: "expected a number, found \(json)")
        }
    }
}

extension Float: JSONFloatingPoint {}
extension Double: JSONFloatingPoint {}

/// Helpers the generated conformances call.
public enum JSONFields {
    /// Bytes as standard base64 with padding.
    public static func bytes(_ value: [UInt8]) -> JSONValue { .string(Base64.encode(value)) }

    public static func bytes(json: JSONValue, path: String) throws(JSONDecodingError) -> [UInt8] {
        guard case .string(let text) = json, let value = Base64.decode(text) else {
            throw JSONDecodingError(path: path, problem: "expected base64 bytes, found \(json)")
        }
        return value
    }

    /// The members of an object, or an error naming `path`.
    public static func members(_ json: JSONValue, path: String, known: Set<String>) throws(JSONDecodingError) -> [String: JSONValue] {
        guard case .object(let members) = json else {
            throw JSONDecodingError(path: path, problem: "expected an object, found \(json)")
        }
        var out: [String: JSONValue] = [:]
        for member in members {
            guard known.contains(member.key) else {
                throw JSONDecodingError(path: path + "." + member.key, problem: "not a field of this message")
            }
            guard out[member.key] == nil else {
                throw JSONDecodingError(path: path + "." + member.key, problem: "given twice")
            }
            out[member.key] = member.value
        }
        return out
    }

    /// The elements of a repeated field.
    public static func array(_ json: JSONValue, path: String) throws(JSONDecodingError) -> [JSONValue] {
        guard case .array(let values) = json else { throw JSONDecodingError(path: path, problem: "expected an array, found \(json)") }
        return values
    }

    public static func decode<T: JSONField>(_ json: JSONValue, path: String, as type: T.Type) throws(JSONDecodingError) -> T {
        try T(json: json, path: path)
    }

    public static func decodeArray<T: JSONField>(_ json: JSONValue, path: String, as type: T.Type) throws(JSONDecodingError) -> [T] {
        var out: [T] = []
        for (index, element) in try array(json, path: path).enumerated() {
            out.append(try T(json: element, path: "\(path)[\(index)]"))
        }
        return out
    }

    public static func decodeBytesArray(_ json: JSONValue, path: String) throws(JSONDecodingError) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for (index, element) in try array(json, path: path).enumerated() {
            out.append(try bytes(json: element, path: "\(path)[\(index)]"))
        }
        return out
    }
}

/// RFC 4648 base64, standard alphabet, with padding.
public enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var chunk: UInt32 = 0
            for offset in 0..<3 {
                chunk = chunk << 8 | UInt32(offset < count ? bytes[index + offset] : 0)
            }
            for position in 0..<4 {
                if position <= count {
                    out.append(alphabet[Int(chunk >> UInt32(18 - 6 * position) & 0x3F)])
                } else {
                    out.append(UInt8(ascii: "="))
                }
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(characters.count / 4 * 3)
        var index = 0
        while index < characters.count {
            var chunk: UInt32 = 0
            var padding = 0
            for offset in 0..<4 {
                let character = characters[index + offset]
                if character == UInt8(ascii: "=") {
                    guard index + 4 == characters.count, offset >= 2 else { return nil }
                    padding += 1
                    chunk <<= 6
                    continue
                }
                guard padding == 0, let value = sextet(character) else { return nil }
                chunk = chunk << 6 | value
            }
            let produced = 3 - padding
            for offset in 0..<produced {
                out.append(UInt8(truncatingIfNeeded: chunk >> UInt32(16 - 8 * offset)))
            }
            index += 4
        }
        return out
    }

    static func sextet(_ character: UInt8) -> UInt32? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(character - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(character - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(character - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
