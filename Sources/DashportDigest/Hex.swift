/// Hex renderings, defined once: digests and fingerprints, byte dumps in logs and tests, message ids.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Lowercase hex, two digits per byte, `separator` between bytes (`"00 03 00 06"` with `" "`).
    public static func string(_ bytes: some Sequence<UInt8>, separator: String = "") -> String {
        var text: [UInt8] = []
        let separatorBytes = Array(separator.utf8)
        for byte in bytes {
            if !text.isEmpty { text += separatorBytes }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A message id as `0x8001`: `0x` and four lowercase digits.
    public static func id(_ id: UInt16) -> String {
        "0x" + string([UInt8(id >> 8), UInt8(id & 0xFF)])
    }
}
