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
    var carName = "car"
    var version: AAPVersion?
    /// The hosted services by the channel the car listed them on.
    private(set) var services: [UInt8: any HostedService] = [:]
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
        self.answers = context.core.answers
        self.audio = context.audio
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
            for id in hosted.controlMessageIds { controlRoutes[id] = service.channel }
            return first
        }
        return []
    }

    private mutating func close(_ channel: UInt8) {
        guard var service = services.removeValue(forKey: channel) else { return }
        service.closed(host: host(for: channel))
        controlRoutes = controlRoutes.filter { $0.value != channel }
    }

    private mutating func message(channel: UInt8, messageId: UInt16, body: [UInt8], now: Duration) -> [OutgoingMessage] {
        let owner = channel == 0 ? controlRoutes[messageId] : channel
        guard let owner, services[owner] != nil else {
            logger.debug(
                "service message with no service to take it",
                ["channel": "\(channel)", "message": Hex.id(messageId), "bytes": "\(body.count)"])
            return []
        }
        let host = host(for: owner)
        return services[owner]?.receive(channel: channel, messageId: messageId, body: body, host: host, now: now) ?? []
    }

    // MARK: Core answers and pushes

    mutating func handle(_ input: ServiceInput, now: Duration) -> [OutgoingMessage] {
        guard services[input.channel] != nil else { return [] }  // its channel closed meanwhile
        let host = host(for: input.channel)
        return services[input.channel]?.handle(input.payload, host: host, now: now) ?? []
    }

    mutating func tick(now: Duration) -> [OutgoingMessage] {
        var out: [OutgoingMessage] = []
        for channel in services.keys.sorted() {
            guard let deadline = services[channel]?.nextDeadline, deadline <= now else { continue }
            let host = host(for: channel)
            out += services[channel]?.tick(host: host, now: now) ?? []
        }
        return out
    }

    var nextDeadline: Duration? { services.values.compactMap(\.nextDeadline).min() }

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
