/// The on-disk form of a cached thumbnail: a 28-byte header, then the encoded image.
///
/// ```
/// 0  "DPAT"            magic
/// 4  1                 version
/// 5  0 | 1             JPEG | PNG
/// 6  0 0               reserved
/// 8  width, height     UInt32 little-endian each
/// 16 payload length    UInt32 little-endian
/// 20 FNV-1a 64         of the payload, little-endian
/// 28 payload
/// ```
/// The checksum catches a damaged or foreign file, which the cache then discards.
enum ThumbnailFile {
    static let headerSize = 28
    private static let magic: [UInt8] = Array("DPAT".utf8)

    static func encode(_ image: ArtworkImage) -> [UInt8] {
        var out = magic
        out += [1, image.mimeType == ArtworkImage.png ? 1 : 0, 0, 0]
        append(UInt32(clamping: image.width), to: &out)
        append(UInt32(clamping: image.height), to: &out)
        append(UInt32(clamping: image.bytes.count), to: &out)
        let sum = checksum(image.bytes[...])
        append(UInt32(truncatingIfNeeded: sum), to: &out)
        append(UInt32(truncatingIfNeeded: sum >> 32), to: &out)
        out += image.bytes
        return out
    }

    static func decode(_ bytes: [UInt8]) throws(ArtworkError) -> ArtworkImage {
        guard bytes.count >= headerSize, Array(bytes[0..<4]) == magic, bytes[4] == 1, bytes[5] <= 1 else {
            throw .io("not a thumbnail file")
        }
        let width = Int(word(bytes, at: 8))
        let height = Int(word(bytes, at: 12))
        let length = Int(word(bytes, at: 16))
        guard length == bytes.count - headerSize, width > 0, height > 0 else { throw .io("thumbnail file truncated") }
        let payload = bytes[headerSize...]
        let stored = UInt64(word(bytes, at: 20)) | UInt64(word(bytes, at: 24)) << 32
        guard checksum(payload) == stored else { throw .io("thumbnail file checksum mismatch") }
        return ArtworkImage(
            bytes: Array(payload),
            mimeType: bytes[5] == 1 ? ArtworkImage.png : ArtworkImage.jpeg,
            width: width,
            height: height
        )
    }

    /// FNV-1a, 64 bit: cheap enough for every cache hit, and enough to notice damage.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    private static func append(_ value: UInt32, to out: inout [UInt8]) {
        out += [
            UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24),
        ]
    }

    private static func word(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
}
