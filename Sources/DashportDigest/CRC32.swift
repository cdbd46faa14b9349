internal import CDashportZlib

/// CRC-32 (IEEE 802.3, as zlib and PNG compute it) from zlib, fed in pieces.
public struct CRC32: Sendable, Hashable {
    /// The checksum of everything given to ``update(_:)`` so far (0 for nothing).
    public private(set) var value: UInt32 = 0

    public init() {}

    public mutating func update(_ bytes: some Collection<UInt8>) {
        let current = value
        value = Array(bytes).withUnsafeBufferPointer { buffer in
            UInt32(truncatingIfNeeded: crc32_z(UInt(current), buffer.baseAddress, buffer.count))
        }
    }

    /// The checksum of `bytes`.
    public static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
