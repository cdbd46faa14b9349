/// The 4- or 8-byte header in front of every AAP frame (aap-protocol.md §1.1):
///
///     channel (u8) · flags (u8) · payload length (u16 BE) · [total length (u32 BE)]
///
/// The total-length field is present exactly when the type is FIRST (FIRST-but-not-LAST). It
/// counts the whole *plaintext* message (2-byte id included); the payload length counts the
/// bytes on the wire in this frame (the TLS record when encrypted) — the two use different units.
public struct FrameHeader: Sendable, Hashable {
    /// Header size of every frame except FIRST.
    public static let baseSize = 4
    /// Header size of a FIRST frame (with the total-length field).
    public static let firstSize = 8

    public var channel: UInt8
    public var flags: FrameFlags
    /// Bytes of payload following the header on the wire.
    public var payloadLength: UInt16
    /// Whole plaintext message length; non-nil exactly when ``type`` is ``FrameType/first``.
    public var totalLength: UInt32?

    /// Creates a header. `totalLength` is required for a FIRST frame and dropped for any other
    /// type, so a header always encodes as what its flags say.
    public init(channel: UInt8, flags: FrameFlags, payloadLength: UInt16, totalLength: UInt32? = nil) {
        precondition(
            flags.type != .first || totalLength != nil,
            "FrameHeader: a FIRST frame needs its message's total length")
        self.channel = channel
        self.flags = flags
        self.payloadLength = payloadLength
        self.totalLength = flags.type == .first ? totalLength : nil
    }

    /// The fragment position, from the flags by masked equality.
    public var type: FrameType { flags.type }

    /// Bytes this header takes on the wire: 8 for FIRST, 4 otherwise.
    public var encodedSize: Int { Self.encodedSize(flags: flags) }

    /// Header size implied by a flags byte.
    public static func encodedSize(flags: FrameFlags) -> Int {
        flags.type == .first ? firstSize : baseSize
    }

    /// Writes the header's wire bytes at `buffer[offset...]` (which must have ``encodedSize``
    /// bytes of room) and returns how many it wrote.
    public func write(into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> Int {
        precondition(offset >= 0 && buffer.count - offset >= encodedSize, "FrameHeader: no room for the header")
        buffer[offset] = channel
        buffer[offset + 1] = flags.rawValue
        buffer[offset + 2] = UInt8(truncatingIfNeeded: payloadLength >> 8)
        buffer[offset + 3] = UInt8(truncatingIfNeeded: payloadLength)
        guard type == .first else { return Self.baseSize }
        guard let total = totalLength else {
            preconditionFailure("FrameHeader: FIRST frame on channel \(channel) has no total length")
        }
        for index in 0..<4 { buffer[offset + 4 + index] = UInt8(truncatingIfNeeded: total >> UInt32(24 - 8 * index)) }
        return Self.firstSize
    }

    /// Appends the header's wire bytes to `buffer`.
    public func encode(into buffer: inout [UInt8]) {
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: encodedSize))
        _ = buffer.withUnsafeMutableBufferPointer { write(into: $0, at: start) }
    }

    /// The header's wire bytes.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encodedSize)
        encode(into: &bytes)
        return bytes
    }

    /// Parses a header from the start of `bytes`; `nil` when fewer bytes than the header needs
    /// are present. Any bytes parse: limits are checked by ``FrameDecoder``, not here.
    public static func decode(from bytes: some Collection<UInt8>) -> FrameHeader? {
        var iterator = bytes.makeIterator()
        guard let channel = iterator.next(), let rawFlags = iterator.next(),
            let lengthHigh = iterator.next(), let lengthLow = iterator.next()
        else { return nil }
        let flags = FrameFlags(rawValue: rawFlags)
        let payloadLength = UInt16(lengthHigh) << 8 | UInt16(lengthLow)
        var total: UInt32?
        if flags.type == .first {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let byte = iterator.next() else { return nil }
                value = value << 8 | UInt32(byte)
            }
            total = value
        }
        return FrameHeader(channel: channel, flags: flags, payloadLength: payloadLength, totalLength: total)
    }
}

extension FrameHeader: CustomStringConvertible {
    public var description: String {
        var text = "ch \(channel) \(type) flags 0x\(String(flags.rawValue, radix: 16)) len \(payloadLength)"
        if let totalLength { text += " total \(totalLength)" }
        return text
    }
}
