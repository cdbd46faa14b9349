import DashportDigest
public import DashportFrames
public import DashportTLS

/// An AAP protocol version: what the head unit asks for in VERSION_REQUEST and what we answer.
public struct AAPVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var major: UInt16
    public var minor: UInt16

    public init(major: UInt16, minor: UInt16) {
        self.major = major
        self.minor = minor
    }

    public static func < (a: AAPVersion, b: AAPVersion) -> Bool {
        (a.major, a.minor) < (b.major, b.minor)
    }

    public var description: String { "\(major).\(minor)" }
}

/// Where a link is in its life. Setup runs top to bottom; `closing` means our BYEBYE_REQUEST is out.
public enum LinkPhase: String, Sendable, Hashable, CustomStringConvertible {
    /// Waiting for the head unit's VERSION_REQUEST (or, in the car role, for the phone's answer).
    case versionExchange
    /// TLS handshake records travel in ENCAPSULATED_SSL messages.
    case tlsHandshake
    /// TLS is up; the phone waits for AUTH_COMPLETE (the car role skips this phase).
    case authentication
    /// SERVICE_DISCOVERY_REQUEST is out (phone) or awaited (car).
    case discovery
    /// Channels are opening or open; pings flow; service traffic is delivered.
    case running
    /// We sent BYEBYE_REQUEST and wait for the answer or the grace period.
    case closing
    /// The link is over; every further call returns no actions.
    case closed

    public var description: String { rawValue }
}

/// Why a channel-open request did not open the channel.
public enum ChannelOpenFailure: Sendable, Hashable, CustomStringConvertible {
    /// The head unit answered with a non-zero `MessageStatus` (e.g. -4 INVALID_SERVICE).
    case status(Int32)
    /// No answer within ``LinkConfiguration/channelOpenTimeout`` (aasdk never answers some, §8.9).
    /// A success that arrives later still opens the channel.
    case timedOut

    public var description: String {
        switch self {
        case .status(let status): "head unit answered status \(status)"
        case .timedOut: "no answer in time"
        }
    }
}

/// The TLS session's outcome, as reported once the handshake is complete.
public struct TLSSummary: Sendable, Hashable, CustomStringConvertible {
    /// e.g. "TLSv1.2".
    public var version: String
    /// OpenSSL's name of the suite, e.g. "ECDHE-RSA-AES128-GCM-SHA256".
    public var cipher: String
    /// SHA-256 of the peer certificate's DER bytes (lowercase hex), if it presented one.
    public var peerFingerprint: String?

    public init(version: String, cipher: String, peerFingerprint: String?) {
        self.version = version
        self.cipher = cipher
        self.peerFingerprint = peerFingerprint
    }

    public var description: String { "\(version) \(cipher) peer=\(peerFingerprint ?? "none")" }
}

/// What happened on a phone-role link, for the driver and the services above it.
public enum LinkEvent: Sendable, Hashable {
    /// We answered the head unit's VERSION_REQUEST with this version and status 0.
    case versionNegotiated(AAPVersion)
    /// The TLS handshake finished.
    case tlsEstablished(TLSSummary)
    /// The head unit sent AUTH_COMPLETE with status 0; discovery starts.
    case authComplete
    /// The SERVICE_DISCOVERY_RESPONSE, typed. Channel-open requests follow for the services we drive.
    case discovered(CarDescription)
    /// The head unit answered our CHANNEL_OPEN_REQUEST with success: service traffic may flow.
    case channelOpened(CarService)
    /// The channel did not open; the rest of the link is unaffected.
    case channelOpenFailed(CarService, ChannelOpenFailure)
    /// The head unit sent CHANNEL_CLOSE_NOTIFICATION for an open channel; it is closed now.
    case channelClosed(CarService)
    /// A service message (message id + body) on a channel we opened.
    case message(channel: UInt8, messageId: UInt16, body: [UInt8])
    /// A PING_RESPONSE echoed one of our pings; `rtt` is measured on the injected clock.
    case pingAnswered(rtt: Duration)
    /// The head unit asked to end the session; we answered BYEBYE_RESPONSE and close next.
    case byeByeReceived(reason: Int32)
}

/// What the driver must do, in order: write bytes, hand an event up, or close the connection.
public enum LinkAction: Sendable, Hashable {
    /// Write these wire bytes (one or more whole frames) to the transport, in order.
    case send([UInt8])
    /// Hand this event to the services layer.
    case event(LinkEvent)
    /// Close the transport after writing every preceding `send`. Always the last action.
    case close(LinkCloseReason)
}

/// Why a link closed. Each case closes only that link; every other connection is unaffected.
public enum LinkCloseReason: Error, Sendable, Hashable, CustomStringConvertible {
    /// The first bytes were not an AAP VERSION_REQUEST on channel 0 (not a head unit, or garbage).
    case notAAP(String)
    /// (Car role) the peer's first bytes are not AAP frames, or nothing came back within the
    /// first-answer deadline: not a phone (an HTTP or SSH server, ...).
    case notAAPServer(String)
    /// The head unit asked for a major version we do not speak; we answered status 0xFFFF (§8.7).
    case versionMismatch(requested: AAPVersion)
    /// (Car role) the phone answered our VERSION_REQUEST with a non-zero status.
    case versionRejected(answered: AAPVersion, status: UInt16)
    /// A frame broke the framing rules: bad length, MIDDLE without FIRST, over a size cap.
    case badFrame(FrameError)
    /// A reassembled message was shorter than its 2-byte message id.
    case missingMessageId(channel: UInt8, length: Int)
    /// A frame arrived on a channel the head unit never listed in its discovery response.
    case unlistedChannel(UInt8)
    /// A service message arrived on a listed channel that is not open.
    case channelNotOpen(channel: UInt8, messageId: UInt16)
    /// The TLS engine failed: a bad handshake record, a record that does not decrypt, an encrypted
    /// frame before the handshake finished (`.notEstablished`), ...
    case tlsFailure(TLSError)
    /// After TLS, a frame arrived in the clear that is not a whole AUTH_COMPLETE or ping on channel 0
    /// (aap-protocol.md §2.8): refused, since anyone on the path could have injected it. `messageId`
    /// is nil when the frame was a fragment or too short to carry one.
    case plaintextAfterTLS(channel: UInt8, messageId: UInt16?)
    /// Setup (version, TLS, auth, discovery) did not finish within the handshake deadline.
    case handshakeTimeout(phase: LinkPhase)
    /// Before authenticating, the peer sent more than `limit` bytes: a head unit's setup (version,
    /// TLS flights, AUTH_COMPLETE) is a few KiB, so this is a flood, closed before it costs more.
    case setupInputExceeded(limit: Int)
    /// Before authenticating, the peer sent a frame no head unit's setup contains: on a channel other
    /// than 0, or empty and not the LAST of a message (aap-protocol.md §2.2, §8.2). Closed at that
    /// frame, before it is decrypted or reassembled: a flood of such frames holds no memory but
    /// would cost the server a frame's parsing each.
    case notASetupFrame(channel: UInt8, type: FrameType, length: Int)
    /// Before authenticating, the peer sent more than `limit` frames: a head unit's setup is a
    /// handful (VERSION_REQUEST, two TLS flights, AUTH_COMPLETE), so this is a flood of small
    /// frames, closed before it costs more parsing.
    case setupFramesExceeded(limit: Int)
    /// Nothing was received for the configured idle deadline (off by default).
    case idleTimeout(Duration)
    /// A control message we need did not decode.
    case undecodable(messageId: UInt16, String)
    /// A message that makes no sense in the current phase (e.g. AUTH_COMPLETE before TLS).
    case unexpectedMessage(channel: UInt8, messageId: UInt16, phase: LinkPhase)
    /// AUTH_COMPLETE carried a non-zero status.
    case authenticationFailed(status: Int32)
    /// The peer sent BYEBYE_REQUEST; we answered and closed.
    case peerByeBye(reason: Int32)
    /// We sent BYEBYE_REQUEST; `answered` says whether BYEBYE_RESPONSE came before the grace ran out.
    case byeBye(answered: Bool)

    public var description: String {
        switch self {
        case .notAAP(let detail): "not an AAP head unit: \(detail)"
        case .notAAPServer(let detail): "this is not an AAP phone (\(detail))"
        case .versionMismatch(let v): "head unit asked for unsupported protocol version \(v); answered 0xFFFF"
        case .versionRejected(let v, let status):
            "phone rejected our protocol version (answered \(v), status \(status))"
        case .badFrame(let error): "bad frame: \(error)"
        case .missingMessageId(let channel, let length):
            "message of \(length) bytes on channel \(channel) is shorter than its 2-byte id"
        case .unlistedChannel(let channel): "frame on channel \(channel), which the head unit never listed"
        case .channelNotOpen(let channel, let id):
            "message \(Hex.id(id)) on channel \(channel), which is not open"
        case .tlsFailure(let error): "\(error)"
        case .plaintextAfterTLS(let channel, let id):
            "plaintext \(id.map(Hex.id) ?? "fragment") on channel \(channel) after TLS; only AUTH_COMPLETE and pings may be sent in the clear"
        case .handshakeTimeout(let phase): "handshake deadline passed during \(phase)"
        case .setupInputExceeded(let limit): "more than \(limit) bytes received before authentication (a head unit's setup is a few KiB)"
        case .notASetupFrame(let channel, let type, let length):
            "\(length == 0 ? "empty " : "")\(type) frame of \(length) bytes on channel \(channel) before authentication: no head unit's setup sends one"
        case .setupFramesExceeded(let limit): "more than \(limit) frames received before authentication (a head unit's setup is a handful)"
        case .idleTimeout(let limit): "nothing received for \(limit)"
        case .undecodable(let id, let detail): "control message \(Hex.id(id)) did not decode: \(detail)"
        case .unexpectedMessage(let channel, let id, let phase):
            "unexpected message \(Hex.id(id)) on channel \(channel) during \(phase)"
        case .authenticationFailed(let status): "AUTH_COMPLETE reported status \(status)"
        case .peerByeBye(let reason): "peer said bye-bye (reason \(reason))"
        case .byeBye(let answered): answered ? "bye-bye answered" : "bye-bye unanswered within the grace period"
        }
    }
}

/// Why ``PhoneLink/send(channel:messageId:body:)`` refused a message. Nothing was sent.
public enum LinkSendError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The link is not running (still in setup, or closing/closed).
    case notRunning(LinkPhase)
    /// The channel is not open (never listed, not requested, failed, or closed by the head unit).
    case channelNotOpen(UInt8)
    /// Message id + body exceed the message cap of ``FrameLimits``.
    case messageTooLarge(size: Int, limit: Int)

    public var description: String {
        switch self {
        case .notRunning(let phase): "link is not running (\(phase))"
        case .channelNotOpen(let channel): "channel \(channel) is not open"
        case .messageTooLarge(let size, let limit): "message of \(size) bytes exceeds the \(limit)-byte cap"
        }
    }
}
