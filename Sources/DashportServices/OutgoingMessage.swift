public import DashportMessages

/// A message a service wants sent to the car on one of the car's channels. The link encrypts,
/// fragments and frames it; the service only says what and where.
///
/// Each service is a sans-IO value: it takes the car's messages on its channel, core updates and
/// the time, and returns its own action enum, in which `send(OutgoingMessage)` is one case and
/// requests to the core (browse, a session command, artwork) are others. The connection driver in
/// `DashportServer` performs those requests with the core actors and hands the answers back.
public struct OutgoingMessage: Sendable, Hashable {
    public var channel: UInt8
    public var messageId: UInt16
    public var body: [UInt8]

    public init(channel: UInt8, messageId: UInt16, body: [UInt8]) {
        self.channel = channel
        self.messageId = messageId
        self.body = body
    }

    public init(channel: UInt8, messageId: UInt16, message: some WireMessage) {
        self.init(channel: channel, messageId: messageId, body: message.serializedBytes())
    }
}
