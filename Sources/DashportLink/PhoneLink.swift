import DashportFrames
public import DashportLog
public import DashportMessages
public import DashportTLS

/// The phone side of one AAP link, sans-IO: bytes and the time go in, wire bytes, events and a
/// close come out (aap-protocol.md §2.2).
///
/// Logging: what the link reports as a ``LinkEvent`` or a close (version aside, whose request only
/// the link sees) is logged once, by the owner that handles the event (the server's `car:` lines,
/// which name the car); the link's own log holds what it handles alone (ignored or tolerated
/// messages, the version exchange, its own BYEBYE).
///
/// The head unit drives setup: VERSION_REQUEST → our VERSION_RESPONSE → TLS (we are the server)
/// in ENCAPSULATED_SSL messages → AUTH_COMPLETE → our SERVICE_DISCOVERY_REQUEST → its response →
/// our CHANNEL_OPEN_REQUESTs for the listed services we drive → running: pings about every second,
/// service traffic on open channels → BYEBYE either way.
///
/// The driver calls ``receive(_:now:)`` with whatever the transport read, ``tick(now:)`` at
/// ``nextDeadline``, ``send(channel:messageId:body:)`` for service messages and performs the
/// returned actions in order. `now` is any monotonic clock reading (the same clock every call).
/// Every wire error ends this link only, with a typed ``LinkCloseReason``.
///
/// Not thread-safe and not `Sendable` (it owns a `TLSSession`): keep each link on one thread
/// or actor, and write its `send` actions to the transport in the order they are returned.
public final class PhoneLink {
    public let configuration: LinkConfiguration
    /// Where the link is now.
    public internal(set) var phase: LinkPhase = .versionExchange
    /// The version we answered, once the version exchange is done.
    public internal(set) var version: AAPVersion?
    /// The head unit's description, once its discovery response arrived.
    public internal(set) var car: CarDescription?
    /// Why the link closed, once it has.
    public internal(set) var closeReason: LinkCloseReason?
    /// Sees every message this link receives or sends, except TLS handshake records (session
    /// recordings). Set it before the first bytes arrive to see the whole session.
    public var tap: WireTap? {
        get { wire.tap }
        set { wire.tap = newValue }
    }

    /// Bytes the peer has made this link hold in unfinished messages (a FIRST frame counts its
    /// declared total): what the server charges against its process-wide reassembly budget.
    public var pendingMessageBytes: Int { wire.pendingMessageByteCount }

    var wire: LinkWire
    let logger: Logger
    var channels: ChannelTable?
    var pings: PingKeeper
    /// First clock reading seen: the handshake deadline counts from here.
    var startedAt: Duration?
    var lastReceivedAt: Duration?
    var byeByeDeadline: Duration?
    /// The first bytes, kept until 4 are in to check they start a plain channel-0 frame.
    var preamble: [UInt8] = []
    /// Bytes received while not yet authenticated (see ``LinkConfiguration/unauthenticatedMaxInputBytes``).
    var receivedBeforeAuthentication = 0

    /// `tls` must be a server session (`TLSConfiguration.server`) that has not started yet.
    public convenience init(configuration: LinkConfiguration = LinkConfiguration(), tls: TLSSession, logger: Logger = .silent) {
        self.init(configuration: configuration, recordLayer: tls, logger: logger)
    }

    /// A link over any ``RecordLayer``: the fuzz drivers' null layer (tools/fuzz/Drivers). The
    /// server and the tools use ``init(configuration:tls:logger:)``; nothing they configure reaches this.
    package init(configuration: LinkConfiguration = LinkConfiguration(), recordLayer tls: any RecordLayer, logger: Logger = .silent) {
        self.configuration = configuration
        self.wire = LinkWire(tls: tls, limits: configuration.limits)
        self.wire.pendingLimitBeforeAuthentication = configuration.unauthenticatedMaxPendingBytes
        self.wire.setupFramesOnly = true
        self.wire.setupFrameLimit = configuration.unauthenticatedMaxFrames
        self.logger = logger.labelled("link")
        self.pings = PingKeeper(interval: configuration.pingInterval)
    }

    /// A second link in exactly this one's state, over `recordLayer` (a copy of this link's layer,
    /// in its state): the link fuzzer (FuzzLinkRunning) sets a linked pair up once and copies it
    /// for each input instead of replaying the setup. Every stored property is carried over
    /// (`LinkFuzzRunningTests` compares them all by reflection, so a new one cannot be forgotten).
    package func copy(recordLayer: any RecordLayer) -> PhoneLink {
        PhoneLink(copying: self, recordLayer: recordLayer)
    }

    private init(copying other: PhoneLink, recordLayer: any RecordLayer) {
        configuration = other.configuration
        phase = other.phase
        version = other.version
        car = other.car
        closeReason = other.closeReason
        wire = other.wire.copy(over: recordLayer)
        logger = other.logger
        channels = other.channels
        pings = other.pings
        startedAt = other.startedAt
        lastReceivedAt = other.lastReceivedAt
        byeByeDeadline = other.byeByeDeadline
        preamble = other.preamble
        receivedBeforeAuthentication = other.receivedBeforeAuthentication
        hasMoreToDecode = other.hasMoreToDecode
        messagesReceived = other.messagesReceived
    }

    /// Takes bytes the transport read (any split) and returns what to do, in order.
    public func receive(_ bytes: some Collection<UInt8>, now: Duration) -> [LinkAction] {
        guard phase != .closed else { return [] }
        var out = Outbox()
        begin(now)
        if !bytes.isEmpty { lastReceivedAt = now }
        if phase == .versionExchange || phase == .tlsHandshake || phase == .authentication {
            receivedBeforeAuthentication += bytes.count
            if receivedBeforeAuthentication > configuration.unauthenticatedMaxInputBytes {
                close(.setupInputExceeded(limit: configuration.unauthenticatedMaxInputBytes), &out)
                return out.actions
            }
        }
        if phase == .versionExchange && preamble.count < FrameHeader.baseSize {
            preamble.append(contentsOf: bytes.prefix(FrameHeader.baseSize - preamble.count))
            if let problem = VersionExchange.preambleProblem(preamble) {
                close(.notAAP(problem), &out)
                return out.actions
            }
        }
        wire.feed(bytes)
        hasMoreToDecode = false
        var decoded = 0
        while phase != .closed {
            guard decoded < configuration.maxMessagesPerReceive else {
                hasMoreToDecode = true
                break
            }
            do {
                guard let message = try wire.nextMessage() else { break }
                decoded += 1
                messagesReceived &+= 1
                dispatch(message, now: now, &out)
            } catch {
                close(phase == .versionExchange ? .notAAP("\(error)") : error, &out)
            }
        }
        return out.actions
    }

    /// Received bytes are left undecoded after ``LinkConfiguration/maxMessagesPerReceive``
    /// messages: call ``receive(_:now:)`` again (with no new bytes, or more) to go on.
    public private(set) var hasMoreToDecode = false
    /// Messages received from the car so far (every channel, pings included).
    public private(set) var messagesReceived: UInt64 = 0

    /// Fires what is due at `now`: the handshake and idle deadlines, channel-open timeouts, our
    /// next ping, the bye-bye grace. Call it at ``nextDeadline`` (earlier calls are harmless).
    public func tick(now: Duration) -> [LinkAction] {
        guard phase != .closed else { return [] }
        var out = Outbox()
        begin(now)
        if let deadline = handshakeDeadline, now >= deadline {
            close(.handshakeTimeout(phase: phase), &out)
        } else if let deadline = idleDeadline, now >= deadline, let limit = configuration.idleDeadline {
            close(.idleTimeout(limit), &out)
        } else if phase == .closing, let deadline = byeByeDeadline, now >= deadline {
            close(.byeBye(answered: false), &out)
        }
        guard phase == .running else { return out.actions }
        if var table = channels {
            let expired = table.expire(now: now)
            channels = table
            for service in expired {
                out.event(.channelOpenFailed(service, .timedOut))
            }
        }
        if let timestamp = pings.due(now: now) {
            sendControl(
                ControlID.pingRequest, AAP.PingRequest(timestamp: timestamp).serializedBytes(),
                encrypted: true, &out)
        }
        return out.actions
    }

    /// When ``tick(now:)`` must be called next; `nil` when nothing is scheduled (or closed).
    /// Before the first call to `receive` or `tick` this is `.zero`: tick once when the
    /// connection is up, which starts the handshake clock.
    public var nextDeadline: Duration? {
        guard phase != .closed else { return nil }
        guard startedAt != nil else { return .zero }
        // Asked after every input the server handles: no array is made.
        var earliest = Self.earlier(handshakeDeadline, idleDeadline)
        if phase == .closing { earliest = Self.earlier(earliest, byeByeDeadline) }
        if phase == .running {
            earliest = Self.earlier(earliest, channels?.nextDeadline)
            earliest = Self.earlier(earliest, pings.nextPingAt)
        }
        return earliest
    }

    private static func earlier(_ a: Duration?, _ b: Duration?) -> Duration? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }

    /// The services whose channels are open now.
    public var openServices: [CarService] { channels?.openServices ?? [] }

    /// Sends a service message (id + body) on an open channel, encrypted and fragmented; on the
    /// control channel only the messages a service owns (AUDIO_FOCUS_REQUEST).
    /// Throws, sending nothing, when the link is not running or the channel is not open.
    public func send(channel: UInt8, messageId: UInt16, body: [UInt8]) throws(LinkSendError) -> [LinkAction] {
        guard phase == .running else { throw .notRunning(phase) }
        let serviceControl = channel == 0 && messageId == ControlID.audioFocusRequest
        guard serviceControl || channels?.isOpen(channel) == true else { throw .channelNotOpen(channel) }
        guard wire.fits(bodyCount: body.count) else {
            throw .messageTooLarge(size: body.count + 2, limit: configuration.limits.maxMessageSize)
        }
        var out = Outbox()
        sendMessage(channel: channel, messageId, body, encrypted: true, &out)
        return out.actions
    }

    /// Ends the session cleanly: sends BYEBYE_REQUEST and closes on BYEBYE_RESPONSE or after
    /// ``LinkConfiguration/byeByeGrace``. Before TLS is up there is nobody to tell: it closes now.
    public func sayByeBye(reason: AAP.ByeByeRequest.Reason = .userSelection, now: Duration) -> [LinkAction] {
        guard phase != .closed, phase != .closing else { return [] }
        var out = Outbox()
        begin(now)
        guard wire.tls.isHandshakeComplete else {
            close(.byeBye(answered: false), &out)
            return out.actions
        }
        logger.info("saying bye-bye", ["reason": "\(reason.rawValue)"])
        sendControl(
            ControlID.byeByeRequest, AAP.ByeByeRequest(reason: reason).serializedBytes(),
            encrypted: true, &out)
        if phase != .closed {
            phase = .closing
            pings.stop()
            byeByeDeadline = now + configuration.byeByeGrace
        }
        return out.actions
    }

    // MARK: - Internals (the non-private ones are shared with PhoneLink+Setup and PhoneLink+Running)

    private func begin(_ now: Duration) {
        if startedAt == nil { startedAt = now }
    }

    private var handshakeDeadline: Duration? {
        guard let startedAt, phase.isSetup else { return nil }
        return startedAt + configuration.handshakeDeadline
    }

    private var idleDeadline: Duration? {
        guard let limit = configuration.idleDeadline, let since = lastReceivedAt ?? startedAt else { return nil }
        return since + limit
    }

    /// Encodes and queues one message; a TLS failure while encrypting closes the link.
    func sendMessage(channel: UInt8, _ id: UInt16, _ body: some Collection<UInt8>, encrypted: Bool, _ out: inout Outbox) {
        do {
            out.send(try wire.encode(channel: channel, messageId: id, body: body, encrypted: encrypted))
        } catch {
            close(error, &out)
        }
    }

    func sendControl(_ id: UInt16, _ body: some Collection<UInt8>, encrypted: Bool, _ out: inout Outbox) {
        sendMessage(channel: 0, id, body, encrypted: encrypted, &out)
    }

    func close(_ reason: LinkCloseReason, _ out: inout Outbox) {
        guard phase != .closed else { return }
        phase = .closed
        closeReason = reason
        pings.stop()
        out.actions.append(.close(reason))
    }
}

@available(*, unavailable, message: "PhoneLink owns a TLSSession; keep it on one thread or actor")
extension PhoneLink: Sendable {}

/// Actions collected during one call.
struct Outbox {
    var actions: [LinkAction] = []
    mutating func send(_ bytes: [UInt8]) { actions.append(.send(bytes)) }
    mutating func event(_ event: LinkEvent) { actions.append(.event(event)) }
}

extension LinkPhase {
    /// Version exchange through discovery: the phases the handshake deadline covers.
    package var isSetup: Bool {
        switch self {
        case .versionExchange, .tlsHandshake, .authentication, .discovery: true
        case .running, .closing, .closed: false
        }
    }
}
