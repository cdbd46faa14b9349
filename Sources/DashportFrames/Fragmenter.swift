/// One plaintext chunk of an outgoing message, with the flags and total its frame will carry.
public struct Fragment: Sendable, Hashable {
    public var channel: UInt8
    /// Type bits plus the caller's encrypted/control bits.
    public var flags: FrameFlags
    /// The whole message's plaintext length; set on FIRST only.
    public var totalLength: UInt32?
    /// The chunk of the message this fragment carries (before encryption).
    public var plaintext: ArraySlice<UInt8>

    public init(channel: UInt8, flags: FrameFlags, totalLength: UInt32?, plaintext: ArraySlice<UInt8>) {
        self.channel = channel
        self.flags = flags
        self.totalLength = totalLength
        self.plaintext = plaintext
    }
}

/// Send side of the frame layer (aap-protocol.md §1.4).
///
/// A message of up to ``FrameLimits/fragmentPlaintext`` bytes (16124) goes out as one BULK frame;
/// a longer one as FIRST (16120 bytes, with the total) → MIDDLE (16124 each) → LAST (the rest,
/// never empty). Those are a real phone's sizes: encrypted with AES-GCM (+29 bytes) every frame is
/// 16157 bytes on the wire, under the 16384 that head units accept. The link encrypts each
/// fragment into one TLS record, then calls ``frame(_:wirePayload:)``.
/// The caller enforces ``FrameLimits/maxMessageSize`` on what it sends.
public enum Fragmenter {
    /// Cuts `message` (2-byte id + body) into fragments. `control` sets flag 0x04, which belongs
    /// on control-namespace messages sent on a non-zero channel (§1.2).
    public static func fragments(
        channel: UInt8, message: [UInt8], encrypted: Bool, control: Bool, limits: FrameLimits = .default
    ) -> [Fragment] {
        var base: FrameFlags = []
        if encrypted { base.insert(.encrypted) }
        if control { base.insert(.control) }

        if message.count <= limits.fragmentPlaintext {
            return [Fragment(channel: channel, flags: base.union(.bulk), totalLength: nil, plaintext: message[...])]
        }
        // An in-memory message over 4 GiB cannot be announced in the 32-bit total field.
        precondition(message.count <= Int(UInt32.max), "Fragmenter: message of \(message.count) bytes exceeds UInt32")
        // At least one byte is left for LAST, so a LAST frame is never empty.
        let firstCount = min(limits.firstFragmentPlaintext, message.count - 1)
        var result = [
            Fragment(
                channel: channel, flags: base.with(type: .first),
                totalLength: UInt32(message.count), plaintext: message[0..<firstCount])
        ]
        result.reserveCapacity(2 + (message.count - firstCount) / limits.fragmentPlaintext)
        var offset = firstCount
        while message.count - offset > limits.fragmentPlaintext {
            let end = offset + limits.fragmentPlaintext
            result.append(
                Fragment(
                    channel: channel, flags: base.with(type: .middle),
                    totalLength: nil, plaintext: message[offset..<end]))
            offset = end
        }
        result.append(
            Fragment(
                channel: channel, flags: base.with(type: .last),
                totalLength: nil, plaintext: message[offset...]))
        return result
    }

    /// The frame carrying `fragment`, with `wirePayload` being its plaintext (when not encrypted)
    /// or the TLS record made from it. `wirePayload` must fit the 16-bit length field.
    public static func frame(_ fragment: Fragment, wirePayload: [UInt8]) -> Frame {
        Frame(channel: fragment.channel, flags: fragment.flags, totalLength: fragment.totalLength, payload: wirePayload)
    }

    /// Convenience for plaintext messages: the frames that carry `message` unencrypted.
    public static func plaintextFrames(
        channel: UInt8, message: [UInt8], control: Bool = false, limits: FrameLimits = .default
    ) -> [Frame] {
        fragments(channel: channel, message: message, encrypted: false, control: control, limits: limits)
            .map { frame($0, wirePayload: Array($0.plaintext)) }
    }
}
