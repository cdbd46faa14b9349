import DashportLink
import DashportLog
import DashportServices

/// Input for the services of one car that comes from outside the link: core answers and pushes.
enum ServiceInput: Sendable {
    case placeholder
}

/// The services of one car connection: created as the link opens their channels, fed the car's
/// messages, core answers and pushes, and asked for what to send.
struct CarServices {
    let context: ServerContext
    let logger: Logger
    let inputs: AsyncStream<CarInput>.Continuation

    init(context: ServerContext, logger: Logger, inputs: AsyncStream<CarInput>.Continuation) {
        self.context = context
        self.logger = logger
        self.inputs = inputs
    }

    /// Reacts to what the link reports; returns service messages to send.
    mutating func linkEvent(_ event: LinkEvent, now: Duration) -> [OutgoingMessage] {
        switch event {
        case .versionNegotiated(let version):
            logger.info("version negotiated", ["version": "\(version)"])
        case .tlsEstablished(let summary):
            logger.info("TLS established", ["tls": summary.version, "cipher": summary.cipher, "car-cert": summary.peerFingerprint ?? "none"])
        case .authComplete:
            logger.debug("auth complete")
        case .discovered(let car):
            logger.info("car discovered", ["car": describe(car.identity), "services": "\(car.services.count)"])
        case .channelOpened(let service):
            logger.info("channel opened", ["channel": "\(service.channel)", "service": "\(service.kind)"])
        case .channelOpenFailed(let service, let failure):
            logger.warning("channel did not open: \(failure)", ["channel": "\(service.channel)", "service": "\(service.kind)"])
        case .channelClosed(let service):
            logger.info("channel closed by the car", ["channel": "\(service.channel)", "service": "\(service.kind)"])
        case .message(let channel, let messageId, let body):
            logger.debug("service message with no service to take it", [
                "channel": "\(channel)", "message": hex(messageId), "bytes": "\(body.count)",
            ])
        case .pingAnswered(let rtt):
            logger.trace("ping answered", ["rtt": "\(rtt)"])
        case .byeByeReceived(let reason):
            logger.info("car said bye-bye", ["reason": "\(reason)"])
        }
        return []
    }

    mutating func handle(_ input: ServiceInput, now: Duration) -> [OutgoingMessage] { [] }

    mutating func tick(now: Duration) -> [OutgoingMessage] { [] }

    var nextDeadline: Duration? { nil }

    /// The connection is over: end subscriptions and pending core work.
    mutating func stop() {}
}

/// "Make Model (head unit make model sw)" from whichever fields the car filled in.
func describe(_ identity: HeadUnitIdentity) -> String {
    let car = [identity.make, identity.model, identity.year].compactMap { $0 }.filter { !$0.isEmpty }
    let unit = [identity.headUnitMake, identity.headUnitModel, identity.headUnitSoftwareVersion].compactMap { $0 }.filter { !$0.isEmpty }
    let text = car.joined(separator: " ") + (unit.isEmpty ? "" : " (\(unit.joined(separator: " ")))")
    return text.isEmpty ? "unnamed" : text
}
