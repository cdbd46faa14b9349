import DashportFrames
public import DashportLink
public import DashportLog
public import DashportMessages
public import DashportTLS

/// The car (head unit) side of one AAP link, sans-IO, built from the same frame and TLS layers
/// as ``PhoneLink``. It is the fake head unit of the tests and of the `dashport-hu` emulator.
///
/// It speaks first: ``start(now:)`` sends VERSION_REQUEST. Then it is the TLS client, sends
/// AUTH_COMPLETE, answers SERVICE_DISCOVERY_REQUEST with ``HeadUnitConfiguration/car``, answers
/// CHANNEL_OPEN_REQUESTs on listed channels and reports service traffic. It is strict about what
/// the phone does (a message on a channel it did not open closes the link) so tests catch phone
/// bugs, and scriptable: see ``HeadUnitConfiguration``, ``sendUnchecked(channel:messageId:body:encrypted:)``
/// and ``injectRaw(_:)``.
///
/// Not thread-safe and not `Sendable` (it owns a `TLSSession`).
public final class HeadUnitLink {
    public let configuration: HeadUnitConfiguration
    public internal(set) var phase: LinkPhase = .versionExchange
    /// The version the phone answered, once it did with status 0.
    public internal(set) var version: AAPVersion?
    public internal(set) var closeReason: LinkCloseReason?
    /// Sees every message this link receives or sends, except TLS handshake records (session
    /// recordings). Set it before ``start(now:)`` or the first bytes to see the whole session.
    public var tap: WireTap? {
        get { wire.tap }
        set { wire.tap = newValue }
    }
    /// Channels we answered with success, in no particular order.
    public internal(set) var openChannels: Set<UInt8> = []
    /// The media audio sink and focus answering, when ``HeadUnitConfiguration/audio`` is set:
    /// its ``MediaSinkClient/stats``, ``MediaSinkClient/lead(at:)`` and recent samples.
    public internal(set) var audio: MediaSinkClient?
    /// Gets the PCM of every DATA within START…STOP, decoded (interleaved S16, the START's
    /// format), synchronously while the link handles it: keep it short (queue it).
    public var audioOutput: (([Int16]) -> Void)?

    var wire: LinkWire
    let logger: Logger
    var pings: PingKeeper
    var startedAt: Duration?
    var byeByeDeadline: Duration?
    /// The phone's first bytes (up to 24) while the version answer is awaited: they tell an AAP
    /// phone (channel 0, plaintext) from some other server before a whole frame has come.
    var firstBytes: [UInt8] = []
    var receivedAny = false

    /// `tls` must be a client session (`TLSConfiguration.client`) that has not started yet.
    public convenience init(configuration: HeadUnitConfiguration = HeadUnitConfiguration(), tls: TLSSession, logger: Logger = .silent) {
        self.init(configuration: configuration, recordLayer: tls, logger: logger)
    }

    /// A car over any ``RecordLayer`` (the fuzz drivers' null layer); see ``PhoneLink``.
    package init(configuration: HeadUnitConfiguration = HeadUnitConfiguration(), recordLayer tls: any RecordLayer, logger: Logger = .silent)
    {
        self.configuration = configuration
        self.wire = LinkWire(tls: tls, limits: configuration.limits)
        self.logger = logger.labelled("hu")
        self.pings = PingKeeper(interval: configuration.pingInterval ?? .seconds(1))
        self.audio = configuration.audio.map { MediaSinkClient(car: configuration.car, configuration: $0) }
    }

    /// A second car in exactly this one's state over `recordLayer` (a copy of this car's layer, in
    /// its state); see ``DashportLink/PhoneLink/copy(recordLayer:)``, which the fuzz drivers use with it.
    package func copy(recordLayer: any RecordLayer) -> HeadUnitLink {
        HeadUnitLink(copying: self, recordLayer: recordLayer)
    }

    private init(copying other: HeadUnitLink, recordLayer: any RecordLayer) {
        configuration = other.configuration
        phase = other.phase
        version = other.version
        closeReason = other.closeReason
        openChannels = other.openChannels
        audio = other.audio
        audioOutput = other.audioOutput
        wire = other.wire.copy(over: recordLayer)
        logger = other.logger
        pings = other.pings
        startedAt = other.startedAt
        byeByeDeadline = other.byeByeDeadline
        firstBytes = other.firstBytes
        receivedAny = other.receivedAny
    }

    /// Opens the conversation: VERSION_REQUEST on channel 0, flags 0x03. Call once, when the
    /// transport is up; it starts the handshake clock.
    public func start(now: Duration) -> [HeadUnitAction] {
        guard startedAt == nil, phase != .closed else { return [] }
        startedAt = now
        var out = HeadUnitOutbox()
        logger.info("requesting version", ["version": "\(configuration.version)"])
        sendControl(ControlID.versionRequest, VersionBody.request(configuration.version), encrypted: false, &out)
        return out.actions
    }

    /// Takes bytes the transport read (any split) and returns what to do, in order.
    public func receive(_ bytes: some Collection<UInt8>, now: Duration) -> [HeadUnitAction] {
        guard phase != .closed else { return [] }
        if startedAt == nil { startedAt = now }
        var out = HeadUnitOutbox()
        let awaitingVersion = phase == .versionExchange
        if !bytes.isEmpty { receivedAny = true }
        if awaitingVersion, firstBytes.count < 24 { firstBytes += bytes.prefix(24 - firstBytes.count) }
        if awaitingVersion, !Self.couldStartVersionAnswer(firstBytes) {
            // An AAP phone's first frame is on channel 0, in plaintext: say so now, not at the
            // handshake deadline after waiting for a "frame" an HTTP or SSH banner announced.
            close(.notAAPServer(Self.describeFirstBytes(firstBytes)), &out)
            return out.actions
        }
        wire.feed(bytes)
        let cutBefore = wire.framesBetweenFragments
        while phase != .closed {
            do {
                guard let message = try wire.nextMessage() else { break }
                dispatch(message, now: now, &out)
            } catch {
                // Bytes that do not even frame before the version answer: some other kind of server.
                close(awaitingVersion ? .notAAPServer(Self.describeFirstBytes(firstBytes)) : error, &out)
            }
        }
        if cutBefore == 0, wire.framesBetweenFragments > 0 {
            logger.warning("the phone sent a frame between the fragments of another message (aasdk-old would abort the link)")
        }
        return out.actions
    }

    /// Frames the phone sent on one channel while a fragmented message on another was under way
    /// (see ``DashportLink/LinkWire/framesBetweenFragments``): 0 from a phone that old head units
    /// can take.
    public var framesBetweenFragments: Int { wire.framesBetweenFragments }

    /// Whether `bytes` (the first the peer sent) can begin a VERSION_RESPONSE frame: channel 0,
    /// neither the encrypted nor the control-on-a-channel bit (aap-protocol.md §1.2).
    static func couldStartVersionAnswer(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 2 else { return bytes.first.map { $0 == 0 } ?? true }
        return bytes[0] == 0 && bytes[1] & (FrameFlags.encrypted.rawValue | FrameFlags.control.rawValue) == 0
    }

    /// The first bytes a peer sent, as text when they are printable (an HTTP or SSH banner), else hex.
    static func describeFirstBytes(_ bytes: [UInt8]) -> String {
        let printable = bytes.allSatisfy { (0x20..<0x7F).contains($0) || $0 == 0x0A || $0 == 0x0D }
        if printable, !bytes.isEmpty {
            let text = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            return "it answered \"\(text)\""
        }
        return "its first bytes are " + bytes.prefix(8).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " ")
    }

    /// Fires what is due at `now`: the handshake deadline, the bye-bye grace, our next ping.
    public func tick(now: Duration) -> [HeadUnitAction] {
        guard phase != .closed else { return [] }
        if startedAt == nil { startedAt = now }
        var out = HeadUnitOutbox()
        if let deadline = firstAnswerDeadline, now >= deadline, let wait = configuration.firstAnswerDeadline {
            close(.notAAPServer("nothing came back within \(wait) of the VERSION_REQUEST; an AAP phone answers at once"), &out)
        } else if let deadline = handshakeDeadline, now >= deadline {
            close(.handshakeTimeout(phase: phase), &out)
        } else if phase == .closing, let deadline = byeByeDeadline, now >= deadline {
            close(.byeBye(answered: false), &out)
        } else if phase == .running {
            if let timestamp = pings.due(now: now) {
                sendControl(
                    ControlID.pingRequest, AAP.PingRequest(timestamp: timestamp).serializedBytes(),
                    encrypted: configuration.controlEncryption == .encrypted, &out)
            }
            if phase == .running, let outputs = audio?.tick(now: now) { perform(outputs, &out) }
        }
        return out.actions
    }

    /// When ``tick(now:)`` must be called next; `nil` when nothing is scheduled.
    public var nextDeadline: Duration? {
        guard phase != .closed else { return nil }
        var candidates = [handshakeDeadline, firstAnswerDeadline].compactMap { $0 }
        if phase == .closing, let byeByeDeadline { candidates.append(byeByeDeadline) }
        if phase == .running, let next = pings.nextPingAt { candidates.append(next) }
        if phase == .running, let next = audio?.nextDeadline { candidates.append(next) }
        return candidates.min()
    }

    /// Sends a service message on a channel we opened, encrypted and fragmented.
    public func send(channel: UInt8, messageId: UInt16, body: [UInt8]) throws(LinkSendError) -> [HeadUnitAction] {
        guard phase == .running else { throw .notRunning(phase) }
        guard openChannels.contains(channel) else { throw .channelNotOpen(channel) }
        guard wire.fits(bodyCount: body.count) else {
            throw .messageTooLarge(size: body.count + 2, limit: configuration.limits.maxMessageSize)
        }
        var out = HeadUnitOutbox()
        sendMessage(channel: channel, messageId, body, encrypted: true, &out)
        return out.actions
    }

    /// Script hook: frames and sends any message on any channel, with no phase or channel check.
    /// Encrypting before TLS is up closes the link with `.tlsFailure(.notEstablished)`.
    public func sendUnchecked(channel: UInt8, messageId: UInt16, body: [UInt8], encrypted: Bool) -> [HeadUnitAction] {
        guard phase != .closed else { return [] }
        var out = HeadUnitOutbox()
        if encrypted && !wire.tls.isHandshakeComplete {
            close(.tlsFailure(.notEstablished), &out)
        } else {
            sendMessage(channel: channel, messageId, body, encrypted: encrypted, &out)
        }
        return out.actions
    }

    /// Script hook: these exact bytes, in order with everything else we send (garbage, a
    /// hand-made frame). Does not touch the TLS session, so later records stay in sequence.
    public func injectRaw(_ bytes: [UInt8]) -> [HeadUnitAction] {
        phase == .closed ? [] : [.send(bytes)]
    }

    /// Ends the session: BYEBYE_REQUEST, then close on BYEBYE_RESPONSE or after the grace.
    public func sayByeBye(reason: AAP.ByeByeRequest.Reason = .userSelection, now: Duration) -> [HeadUnitAction] {
        guard phase != .closed, phase != .closing else { return [] }
        var out = HeadUnitOutbox()
        guard wire.tls.isHandshakeComplete else {
            close(.byeBye(answered: false), &out)
            return out.actions
        }
        sendControl(ControlID.byeByeRequest, AAP.ByeByeRequest(reason: reason).serializedBytes(), encrypted: true, &out)
        if phase != .closed {
            phase = .closing
            pings.stop()
            byeByeDeadline = now + configuration.byeByeGrace
        }
        return out.actions
    }

    // MARK: - Internals shared with HeadUnitLink+Handling

    private var handshakeDeadline: Duration? {
        guard let startedAt, phase.isSetup else { return nil }
        return startedAt + configuration.handshakeDeadline
    }

    /// When the phone's silence means it is no phone: before its first byte only.
    private var firstAnswerDeadline: Duration? {
        guard let startedAt, let wait = configuration.firstAnswerDeadline, !receivedAny, phase == .versionExchange else { return nil }
        return startedAt + wait
    }

    /// Whether AUTH_COMPLETE and pings we originate or answer go out encrypted now.
    var encryptsControl: Bool {
        configuration.controlEncryption == .encrypted && wire.tls.isHandshakeComplete
    }

    func sendMessage(channel: UInt8, _ id: UInt16, _ body: some Collection<UInt8>, encrypted: Bool, _ out: inout HeadUnitOutbox) {
        do {
            out.send(try wire.encode(channel: channel, messageId: id, body: body, encrypted: encrypted))
        } catch {
            close(error, &out)
        }
    }

    func sendControl(_ id: UInt16, _ body: some Collection<UInt8>, encrypted: Bool, _ out: inout HeadUnitOutbox) {
        sendMessage(channel: 0, id, body, encrypted: encrypted, &out)
    }

    func close(_ reason: LinkCloseReason, _ out: inout HeadUnitOutbox) {
        guard phase != .closed else { return }
        logger.notice("link closed", ["reason": reason.description, "phase": phase.rawValue])
        phase = .closed
        closeReason = reason
        pings.stop()
        out.actions.append(.close(reason))
    }
}

@available(*, unavailable, message: "HeadUnitLink owns a TLSSession; keep it on one thread or actor")
extension HeadUnitLink: Sendable {}
