import DashportDigest
import DashportLink
import DashportLog
import DashportServices

/// The services of one car connection: one ``HostedService`` per channel the link opened, made
/// from ``registered`` when the channel opens, fed the car's messages, core answers and pushes,
/// and asked for what to send. Core requests go through the ``CoreBridge`` and come back as a
/// ``ServiceInput`` addressed to the service's channel.
struct CarServices {
    /// Every service a car connection can host, in the order they are offered a newly opened
    /// channel (the first that takes it hosts it).
    static var registered: [any HostedService.Type] {
        [
            HostedPlaybackStatus.self,
            HostedInput.self,
            HostedClassicBrowser.self,
            HostedMediaChannel.self,
            HostedAudioSink.self,
        ]
    }

    let core: ServerCore
    let logger: Logger
    let bridge: CoreBridge
    let answers: AnswerMemo
    let audio: AudioFanout?
    let updateCar: @Sendable (_ change: @Sendable (inout ConnectedCar) -> Void) -> Void
    var carName = "car" {
        didSet { hosts = [:] }
    }
    var version: AAPVersion? {
        didSet { hosts = [:] }
    }
    /// The hosted services by the channel the car listed them on.
    private(set) var services: [UInt8: any HostedService] = [:]
    /// Each open channel's ``ServiceHost``, made once (its logger's metadata is a string and an
    /// array of its own) rather than for every message and every audio packet.
    private var hosts: [UInt8: ServiceHost] = [:]
    /// Each service's ``HostedService/nextDeadline``, read after every call that can change it
    /// (the worker asks for the earliest after every input).
    private var deadlines: [UInt8: Duration] = [:] {
        didSet { nextDeadline = deadlines.values.min() }
    }
    /// Which service takes each control-channel message id it claimed.
    private var controlRoutes: [UInt16: UInt8] = [:]

    init(
        context: ServerContext, logger: Logger, inputs: CarMailbox,
        updateCar: @escaping @Sendable (_ change: @Sendable (inout ConnectedCar) -> Void) -> Void = { _ in }
    ) {
        self.updateCar = updateCar
        self.core = context.core
        self.logger = logger
        self.bridge = CoreBridge(inputs: inputs)
        self.answers = context.answers
        self.audio = context.audio
    }

    /// The host of the service on `channel`, kept while the channel is open.
    private mutating func cachedHost(for channel: UInt8) -> ServiceHost {
        if let host = hosts[channel] { return host }
        let host = host(for: channel)
        if services.index(forKey: channel) != nil { hosts[channel] = host }
        return host
    }

    func host(for channel: UInt8) -> ServiceHost {
        ServiceHost(
            core: core, bridge: bridge, answers: answers, logger: logger.with("channel", "\(channel)"),
            connectionLogger: logger, channel: channel,
            carName: carName, version: version, audio: audio, updateCar: updateCar)
    }

    // MARK: Link events

    /// Reacts to what the link reports; returns service messages to send.
    mutating func linkEvent(_ event: LinkEvent, now: Duration) -> [OutgoingMessage] {
        switch event {
        case .versionNegotiated(let negotiated):
            version = negotiated  // logged by the link, which knows what the car asked for
        case .tlsEstablished(let summary):
            logger.info(
                "TLS established", ["tls": summary.version, "cipher": summary.cipher, "car-cert": summary.peerFingerprint ?? "none"])
        case .authComplete:
            logger.debug("auth complete")
        case .discovered(let car):
            carName = describe(car.identity)
            logger.info("car discovered", ["car": carName, "services": "\(car.services.count)"])
        case .channelOpened(let service):
            logger.info("channel opened", ["channel": "\(service.channel)", "service": "\(service.kind)"])
            return opened(service, now: now)
        case .channelOpenFailed(let service, let failure):
            logger.warning("channel did not open: \(failure)", ["channel": "\(service.channel)", "service": "\(service.kind)"])
        case .channelClosed(let service):
            logger.info("channel closed by the car", ["channel": "\(service.channel)", "service": "\(service.kind)"])
            close(service.channel)
        case .message(let channel, let messageId, let body):
            return message(channel: channel, messageId: messageId, body: body, now: now)
        case .pingAnswered(let rtt):
            logger.trace("ping answered", ["rtt": "\(rtt)"])
        case .byeByeReceived(let reason):
            logger.info("car said bye-bye", ["reason": "\(reason)"])
        }
        return []
    }

    private mutating func opened(_ service: CarService, now: Duration) -> [OutgoingMessage] {
        close(service.channel)  // a channel opened again starts afresh
        let host = host(for: service.channel)
        for type in Self.registered {
            guard let (hosted, first) = type.make(for: service, host: host, now: now) else { continue }
            services[service.channel] = hosted
            deadlines[service.channel] = hosted.nextDeadline
            for id in hosted.controlMessageIds { controlRoutes[id] = service.channel }
            return first
        }
        return []
    }

    private mutating func close(_ channel: UInt8) {
        guard var service = services.removeValue(forKey: channel) else { return }
        deadlines[channel] = nil
        service.closed(host: hosts.removeValue(forKey: channel) ?? host(for: channel))
        controlRoutes = controlRoutes.filter { $0.value != channel }
    }

    private mutating func message(channel: UInt8, messageId: UInt16, body: [UInt8], now: Duration) -> [OutgoingMessage] {
        let owner = channel == 0 ? controlRoutes[messageId] : channel
        guard let owner, services.index(forKey: owner) != nil else {
            logger.debug(
                "service message with no service to take it",
                ["channel": "\(channel)", "message": Hex.id(messageId), "bytes": "\(body.count)"])
            return []
        }
        let host = cachedHost(for: owner)
        return withService(owner) { $0.receive(channel: channel, messageId: messageId, body: body, host: host, now: now) }
    }

    /// Runs `body` on the service of `channel` in place and notes its next deadline after. Not
    /// `services[channel]?.…` then `services[channel]?.nextDeadline`: reading the deadline through
    /// the dictionary's getter copied the whole hosted service out of its existential box, for
    /// every request (1.3% of a reactor answering GET_CHILDREN, issue 22, item 2).
    private mutating func withService(_ channel: UInt8, _ body: (inout any HostedService) -> [OutgoingMessage]) -> [OutgoingMessage] {
        guard let index = services.index(forKey: channel) else {
            deadlines[channel] = nil
            return []
        }
        let (out, deadline) = Self.run(&services.values[index], body)
        // Only a change is written: each write of `deadlines` recomputes the earliest of them all.
        if deadlines[channel] != deadline { deadlines[channel] = deadline }
        return out
    }

    private static func run(
        _ service: inout any HostedService, _ body: (inout any HostedService) -> [OutgoingMessage]
    ) -> ([OutgoingMessage], Duration?) {
        let out = body(&service)
        return (out, service.nextDeadline)
    }

    // MARK: Core answers and pushes

    mutating func handle(_ input: ServiceInput, now: Duration) -> [OutgoingMessage] {
        guard services.index(forKey: input.channel) != nil else { return [] }  // its channel closed meanwhile
        let host = cachedHost(for: input.channel)
        return withService(input.channel) { $0.handle(input.payload, host: host, now: now) }
    }

    mutating func tick(now: Duration) -> [OutgoingMessage] {
        var out: [OutgoingMessage] = []
        for (channel, deadline) in deadlines.sorted(by: { $0.key < $1.key }) where deadline <= now {
            let host = cachedHost(for: channel)
            out += withService(channel) { $0.tick(host: host, now: now) }
        }
        return out
    }

    /// The earliest deadline of any service, kept as ``deadlines`` changes: the worker reads it
    /// after every input, and a computed property of this struct, read from the worker (a class),
    /// copied the whole struct (a dozen retains) each time.
    private(set) var nextDeadline: Duration?

    /// The connection is over: every service lets go, then subscriptions and pending core work end.
    mutating func stop() {
        for channel in Array(services.keys) { close(channel) }
        bridge.stop()
    }
}

/// "Make Model (head unit make model sw)" from whichever fields the car filled in.
func describe(_ identity: HeadUnitIdentity) -> String {
    let car = [identity.make, identity.model, identity.year].compactMap { $0 }.filter { !$0.isEmpty }
    let unit = [identity.headUnitMake, identity.headUnitModel, identity.headUnitSoftwareVersion].compactMap { $0 }.filter { !$0.isEmpty }
    let text = car.joined(separator: " ") + (unit.isEmpty ? "" : " (\(unit.joined(separator: " ")))")
    return text.isEmpty ? "unnamed" : text
}
