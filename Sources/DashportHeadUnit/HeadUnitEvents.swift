public import DashportLink

/// What happened on the car side of a link, for the emulator and for tests.
public enum HeadUnitEvent: Sendable, Hashable {
    /// The phone answered our VERSION_REQUEST with status 0 and this version.
    case versionNegotiated(AAPVersion)
    /// The TLS handshake finished (we are the client); AUTH_COMPLETE is out.
    case tlsEstablished(TLSSummary)
    /// The phone sent SERVICE_DISCOVERY_REQUEST; our response is out.
    case discoveryRequested(labelText: String?, deviceName: String?)
    /// The phone sent CHANNEL_OPEN_REQUEST on `channel` (reported before it is answered or not).
    case channelOpenRequested(channel: UInt8, priority: Int32, serviceId: Int32, encrypted: Bool)
    /// We answered a CHANNEL_OPEN_REQUEST with success.
    case channelOpened(CarService)
    /// We answered a CHANNEL_OPEN_REQUEST with a configured non-zero status.
    case channelOpenRefused(CarService, status: Int32)
    /// A CHANNEL_OPEN_REQUEST we leave unanswered: an unlisted channel (as aasdk does, §8.9) or
    /// one in ``HeadUnitConfiguration/unansweredChannelOpens``.
    case channelOpenUnanswered(channel: UInt8, listed: Bool)
    /// A service message on an open channel.
    case message(channel: UInt8, messageId: UInt16, body: [UInt8])
    /// The phone pinged us; `encrypted` tells how the ping arrived.
    case pingReceived(timestamp: Int64, encrypted: Bool)
    /// The phone answered one of our pings; `encrypted` tells how the answer arrived.
    case pingAnswered(rtt: Duration, encrypted: Bool)
    /// Any other control message once TLS is up (focus and voice notifications, ...).
    case controlMessage(messageId: UInt16, body: [UInt8], encrypted: Bool)
    /// The media audio sink or audio focus (``MediaSinkClient``): SETUP, START, STOP, underflows,
    /// violations, focus requests and our answers. DATA itself is counted, not reported.
    case audio(MediaSinkEvent)
    /// The phone asked to end the session; we answered BYEBYE_RESPONSE and close next.
    case byeByeReceived(reason: Int32)
}

/// What the driver of a ``HeadUnitLink`` must do, in order.
public enum HeadUnitAction: Sendable, Hashable {
    /// Write these wire bytes to the transport.
    case send([UInt8])
    case event(HeadUnitEvent)
    /// Close the transport after the preceding sends. Always the last action.
    case close(LinkCloseReason)
}

/// Actions collected during one call.
struct HeadUnitOutbox {
    var actions: [HeadUnitAction] = []
    mutating func send(_ bytes: [UInt8]) { actions.append(.send(bytes)) }
    mutating func event(_ event: HeadUnitEvent) { actions.append(.event(event)) }
}
