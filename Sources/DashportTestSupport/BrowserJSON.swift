import Foundation

/// A JSON value as the Chrome DevTools Protocol sends it: what ``BrowserPage/evaluate(_:)`` returns
/// (the page's value, `returnByValue`) and what the harness's messages are made of.
public enum BrowserJSON: Sendable, Equatable, Codable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([BrowserJSON])
    case object([String: BrowserJSON])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([BrowserJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: BrowserJSON].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Parses one message; throws on anything that is not JSON.
    public static func parse(_ bytes: some Collection<UInt8>) throws -> BrowserJSON {
        try JSONDecoder().decode(BrowserJSON.self, from: Data(bytes))
    }

    /// The value as compact JSON text.
    public var serialized: [UInt8] {
        // Safe to `try!`: every case encodes (doubles that are not finite never come from JSON text,
        // and the harness only builds messages from ints, strings and bools).
        Array(try! JSONEncoder().encode(self))
    }

    public var description: String { String(decoding: serialized, as: UTF8.self) }

    public subscript(key: String) -> BrowserJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public subscript(index: Int) -> BrowserJSON? {
        if case .array(let items) = self, items.indices.contains(index) { return items[index] }
        return nil
    }

    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var double: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number when it is a whole number.
    public var int: Int? {
        if case .number(let value) = self, value.rounded() == value, abs(value) < 1e15 { return Int(value) }
        return nil
    }

    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var array: [BrowserJSON]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var object: [String: BrowserJSON]? {
        if case .object(let value) = self { return value }
        return nil
    }
}

extension BrowserJSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(dictionaryLiteral elements: (String, BrowserJSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(arrayLiteral elements: BrowserJSON...) { self = .array(elements) }
}
