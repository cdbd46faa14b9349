/// One whole AAP message as a link sent or received it, after decryption and reassembly, for
/// session recordings (the format is in the DashportRecording documentation,
/// "The session recording format").
///
/// A link with a ``WireTap`` reports every message it receives and every message it sends, in
/// order, except the TLS handshake records carried by ENCAPSULATED_SSL: raw TLS bytes never reach
/// a tap. The link holds no keys or certificates in messages, so neither does a tap's output.
public struct TappedMessage: Sendable, Hashable {
    public enum Direction: Sendable, Hashable {
        case received
        case sent
    }

    public var direction: Direction
    public var channel: UInt8
    public var messageId: UInt16
    /// Whether the message travelled inside TLS records.
    public var encrypted: Bool
    public var body: [UInt8]

    public init(direction: Direction, channel: UInt8, messageId: UInt16, encrypted: Bool, body: [UInt8]) {
        self.direction = direction
        self.channel = channel
        self.messageId = messageId
        self.encrypted = encrypted
        self.body = body
    }
}

/// Called synchronously by a link for every ``TappedMessage``; it must not call back into the link.
public typealias WireTap = (TappedMessage) -> Void
