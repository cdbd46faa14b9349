import DashportMessages
import Testing

/// A message value and the exact bytes it must encode to (see Generated/WireSamples.pb.swift).
struct WireSample: Sendable, CustomTestStringConvertible {
    let name: String
    let message: any WireMessage
    let bytes: [UInt8]

    var testDescription: String { name }
}

/// Whether `other` is a `M` equal to `message`.
func isEqual<M: WireMessage>(_ message: M, _ other: any WireMessage) -> Bool {
    (other as? M) == message
}

/// Decodes `bytes` as the type of `message` (opening the existential).
func decode<M: WireMessage>(_ bytes: [UInt8], as message: M) throws(WireDecodingError) -> any WireMessage {
    try M(serializedBytes: bytes)
}

/// Builds protobuf bytes by hand for tests, independently of protobuf-c.
enum Proto {
    static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var out: [UInt8] = []
        while value >= 0x80 {
            out.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
        return out
    }

    /// A varint field (wire type 0).
    static func field(_ number: UInt64, _ value: UInt64) -> [UInt8] {
        varint(number << 3) + varint(value)
    }

    /// A length-delimited field (wire type 2): bytes, a string, a sub-message or a packed array.
    static func field(_ number: UInt64, bytes: [UInt8]) -> [UInt8] {
        varint(number << 3 | 2) + varint(UInt64(bytes.count)) + bytes
    }

    static func field(_ number: UInt64, _ string: String) -> [UInt8] {
        field(number, bytes: Array(string.utf8))
    }
}
