/// The Android Open Accessory facts both USB ends share (aap-protocol.md §5.1): the vendor
/// requests a head unit sends to a phone, the identities before and after the switch, and the
/// transfer rules of the bulk pipe (usb-e2e.md).
public enum AccessoryProtocol {
    /// ACCESSORY_GET_PROTOCOL: IN, vendor, device; the phone answers 2 bytes, little-endian.
    public static let getProtocol: UInt8 = 51
    /// ACCESSORY_SEND_STRING: OUT, vendor; wIndex is the string index, the data a NUL-terminated string.
    public static let sendString: UInt8 = 52
    /// ACCESSORY_START: OUT, vendor, no data; the phone re-enumerates as an accessory.
    public static let start: UInt8 = 53
    /// The AOA version Dashport announces (AOAv2; head units accept 1 or 2).
    public static let version: UInt16 = 2

    /// Google's vendor id, used by both identities.
    public static let googleVendor: UInt16 = 0x18D1
    /// The accessory identity head units look for after START.
    public static let accessoryProduct: UInt16 = 0x2D00
    /// Accessory + ADB; head units accept it too.
    public static let accessoryADBProduct: UInt16 = 0x2D01
    /// The "phone" identity before START (a Google phone in MTP mode, as waad uses).
    public static let phoneProduct: UInt16 = 0x4EE1

    /// The six identification strings a head unit sends with request 52, by index.
    public static let stringNames = ["manufacturer", "model", "description", "version", "uri", "serial"]

    /// No bulk transfer is larger than this, either way (aasdk reads 16384-byte chunks).
    public static let maxTransfer = 16384

    /// The zero-length-packet rule: a transfer that is a whole number of max-size packets and
    /// shorter than ``maxTransfer`` is followed by a 0-byte transfer, so the peer's read (which
    /// completes only on a short packet or a full 16 KiB buffer) returns. Receivers ignore 0-byte reads.
    public static func needsZeroLengthPacket(length: Int, maxPacket: Int) -> Bool {
        length > 0 && maxPacket > 0 && length % maxPacket == 0 && length < maxTransfer
    }
}

/// The strings a head unit identifies itself with (request 52), as far as it sent them.
public struct AccessoryStrings: Sendable, Hashable {
    public var values: [String?]

    public init(values: [String?] = Array(repeating: nil, count: 6)) {
        self.values = values
    }

    public var manufacturer: String? { values[0] }
    public var model: String? { values[1] }

    /// "manufacturer=Android model=Android Auto ..." for logs; unsent strings are left out.
    public var summary: String {
        var parts: [String] = []
        for (index, value) in values.enumerated() {
            if let value { parts.append("\(AccessoryProtocol.stringNames[index])=\(value)") }
        }
        return parts.isEmpty ? "(no identification strings)" : parts.joined(separator: " ")
    }

    /// Decodes the data of one request 52: UTF-8 up to the first NUL (invalid bytes replaced).
    public static func decode(_ bytes: [UInt8]) -> String {
        let text = bytes.prefix { $0 != 0 }
        return String(decoding: text, as: UTF8.self)
    }
}
