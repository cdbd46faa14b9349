/// Every size the frame layer enforces, with the defaults Dashport uses (design.md "Limits";
/// aap-protocol.md §1.4, §8.1).
public struct FrameLimits: Sendable, Hashable {
    /// Bytes of TLS 1.2 AES-GCM overhead per record: 5 header + 8 explicit nonce + 16 tag (§2.7).
    public static let tlsRecordOverhead = 29

    /// Largest frame payload (length field) accepted from the peer. aasdk sends 16413-byte
    /// encrypted frames (16384 plaintext + 29), so the default leaves 1 KiB above 16 KiB.
    public var maxReceivePayload: Int
    /// Largest frame we put on the wire, header included: headunit and waad reject anything
    /// bigger than 16384 bytes.
    public var maxSendWireFrame: Int
    /// Largest whole message (plaintext, 2-byte id included) accepted or sent: 1 MiB.
    public var maxMessageSize: Int
    /// Total bytes held in unfinished messages over all channels of one connection, so 255
    /// interleaved partial messages cannot each grow to `maxMessageSize`. Default 4 MiB.
    public var maxPendingBytes: Int
    /// Plaintext bytes in a FIRST fragment we send (a real phone's value, §1.4).
    public var firstFragmentPlaintext: Int
    /// Plaintext bytes in a MIDDLE/LAST fragment, and the most a BULK frame carries.
    public var fragmentPlaintext: Int

    /// Values are checked: sizes must be positive, and a fragment of the configured size,
    /// encrypted, must fit `maxSendWireFrame` with its header (8 bytes FIRST, 4 otherwise).
    public init(
        maxReceivePayload: Int = 16384 + 1024,
        maxSendWireFrame: Int = 16384,
        maxMessageSize: Int = 1 << 20,
        maxPendingBytes: Int = 4 << 20,
        firstFragmentPlaintext: Int = 16120,
        fragmentPlaintext: Int = 16124
    ) {
        precondition(
            maxReceivePayload >= 0 && maxReceivePayload <= Int(UInt16.max),
            "FrameLimits: maxReceivePayload must be within 0...65535")
        precondition(
            maxMessageSize > 0 && maxMessageSize <= Int(UInt32.max),
            "FrameLimits: maxMessageSize must be within 1...UInt32.max")
        precondition(maxPendingBytes > 0, "FrameLimits: maxPendingBytes must be positive")
        precondition(
            firstFragmentPlaintext > 0 && fragmentPlaintext > 0,
            "FrameLimits: fragment sizes must be positive")
        precondition(
            8 + firstFragmentPlaintext + Self.tlsRecordOverhead <= maxSendWireFrame
                && 4 + fragmentPlaintext + Self.tlsRecordOverhead <= maxSendWireFrame,
            "FrameLimits: an encrypted fragment would exceed maxSendWireFrame")
        self.maxReceivePayload = maxReceivePayload
        self.maxSendWireFrame = maxSendWireFrame
        self.maxMessageSize = maxMessageSize
        self.maxPendingBytes = maxPendingBytes
        self.firstFragmentPlaintext = firstFragmentPlaintext
        self.fragmentPlaintext = fragmentPlaintext
    }

    /// The documented defaults.
    public static let `default` = FrameLimits()
}
