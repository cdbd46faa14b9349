/// The flags byte of an AAP frame header (aap-protocol.md §1.2).
///
/// Bits 0 and 1 form the frame type and must be read by masked equality (``type``), never by
/// testing one bit: `[.first, .last]` is BULK, not "first and also last". Bits 4–7 are unused;
/// they are kept in `rawValue` as received and ignored by every reader.
public struct FrameFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bit 0: first fragment of a message.
    public static let first = FrameFlags(rawValue: 0x01)
    /// Bit 1: last fragment of a message.
    public static let last = FrameFlags(rawValue: 0x02)
    /// Bit 2: a control-namespace message (ids 2…0x7FFF) sent on a non-zero channel, such as
    /// CHANNEL_OPEN_REQUEST. Clear on channel 0. Readers dispatch by message id, not by this bit.
    public static let control = FrameFlags(rawValue: 0x04)
    /// Bit 3: the payload is TLS ciphertext (one TLS record).
    public static let encrypted = FrameFlags(rawValue: 0x08)
    /// FIRST and LAST together: a whole message in one frame, with no total-length field.
    public static let bulk: FrameFlags = [.first, .last]

    /// The fragment position encoded in bits 0–1.
    public var type: FrameType { FrameType(flags: self) }

    /// The same flags with bits 0–1 replaced by `type`.
    public func with(type: FrameType) -> FrameFlags {
        FrameFlags(rawValue: (rawValue & ~0x03) | type.flagBits)
    }
}

/// The fragment position of a frame, from `flags & 0x03` (aap-protocol.md §1.2).
public enum FrameType: Sendable, Hashable, CustomStringConvertible {
    /// `0b01`: opens a multi-frame message; the header carries the message's total length.
    case first
    /// `0b00`: a continuation; raw message bytes, no message id.
    case middle
    /// `0b10`: ends a multi-frame message; may be empty (aap-protocol.md §8.2).
    case last
    /// `0b11`: a whole message in a single frame.
    case bulk

    /// Reads bits 0–1 of `flags`; the other bits do not matter.
    public init(flags: FrameFlags) {
        switch flags.rawValue & 0x03 {
        case 0x01: self = .first
        case 0x02: self = .last
        case 0x03: self = .bulk
        default: self = .middle
        }
    }

    /// The value of bits 0–1 for this type.
    public var flagBits: UInt8 {
        switch self {
        case .first: 0x01
        case .middle: 0x00
        case .last: 0x02
        case .bulk: 0x03
        }
    }

    public var description: String {
        switch self {
        case .first: "FIRST"
        case .middle: "MIDDLE"
        case .last: "LAST"
        case .bulk: "BULK"
        }
    }
}
