import DashportBrowse
import DashportLink
import DashportLog
import DashportServices
import DashportSession

/// Input for the services of one car that comes from outside the link: core answers and pushes.
enum ServiceInput: Sendable {
    /// The session's state when this car's session subscription began.
    case sessionStarted(SessionSnapshot)
    case session(SessionUpdate)
    /// A command from the car finished; `service` says which service sent it.
    case commandFinished(service: UInt8, SessionCommand, CommandResult)
    /// A cover for the AAP playback status service (nil: none or failed).
    case statusArtwork(itemId: String, bytes: [UInt8]?)
    /// Answers for the classic media browser.
    case classicChildren(ClassicBrowserService.Ticket, BrowseAnswer)
    case classicItem(ClassicBrowserService.Ticket, BrowseItem?)
    case classicArtwork(ClassicBrowserService.Ticket, [UInt8]?)
}

/// The services of one car connection: created as the link opens their channels, fed the car's
/// messages, core answers and pushes, and asked for what to send. Core requests go through the
/// ``CoreBridge`` and come back as ``ServiceInput``.
struct CarServices {
    let core: ServerCore
    let logger: Logger
    let bridge: CoreBridge
    var carName = "car"
    var status: AAPPlaybackStatusService?
    var input: AAPInputService?
    var classic: ClassicBrowserService?
    var sessionSubscribed = false
    var sessionStarted = false

    init(context: ServerContext, logger: Logger, inputs: AsyncStream<CarInput>.Continuation) {
        self.core = context.core
        self.logger = logger
        self.bridge = CoreBridge(inputs: inputs)
    }

    // MARK: Link events

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
            carName = describe(car.identity)
            logger.info("car discovered", ["car": carName, "services": "\(car.services.count)"])
        case .channelOpened(let service):
            logger.info("channel opened", ["channel": "\(service.channel)", "service": "\(service.kind)"])
            return opened(service, now: now)
        case .channelOpenFailed(let service, let failure):
            logger.warning("channel did not open: \(failure)", ["channel": "\(service.channel)", "service": "\(service.kind)"])
        case .channelClosed(let service):
            logger.info("channel closed by the car", ["channel": "\(service.channel)", "service": "\(service.kind)"])
            closed(service)
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
        switch service.kind {
        case .mediaPlaybackStatus:
            var configuration = AAPPlaybackStatusService.Configuration()
            configuration.sessionClockOrigin = AAPPlaybackStatusService.Configuration.sessionClockOrigin(
                linkNow: now, sessionNow: core.sessionClock.now())
            status = AAPPlaybackStatusService(channel: service.channel, car: carName, configuration: configuration)
            subscribeToSession()
            // The status service starts once the session's current state is in (`sessionStarted`).
            return []
        case .input(let keycodes):
            let inputService = AAPInputService(channel: service.channel, car: carName, carKeyCodes: keycodes)
            input = inputService
            return perform(inputService.start(), service: service.channel, now: now)
        case .mediaBrowser:
            classic = ClassicBrowserService(channel: service.channel, car: carName, logger: logger)
            return []
        default:
            return []
        }
    }

    private mutating func closed(_ service: CarService) {
        if status?.channel == service.channel { status = nil }
        if input?.channel == service.channel { input = nil }
        if classic?.channel == service.channel { classic = nil }
    }

    private mutating func message(channel: UInt8, messageId: UInt16, body: [UInt8], now: Duration) -> [OutgoingMessage] {
        if var service = status, service.channel == channel {
            let actions = service.receive(messageId: messageId, body: body, now: now)
            status = service
            return perform(actions, service: channel, now: now)
        }
        if var service = input, service.channel == channel {
            let actions = service.receive(messageId: messageId, body: body, now: now)
            input = service
            return perform(actions, service: channel, now: now)
        }
        if var service = classic, service.channel == channel {
            let actions = service.receive(messageId: messageId, body: body, now: now)
            classic = service
            return perform(actions, now: now)
        }
        logger.debug("service message with no service to take it", [
            "channel": "\(channel)", "message": hex(messageId), "bytes": "\(body.count)",
        ])
        return []
    }

    // MARK: Core answers and pushes

    mutating func handle(_ serviceInput: ServiceInput, now: Duration) -> [OutgoingMessage] {
        var out: [OutgoingMessage] = []
        switch serviceInput {
        case .sessionStarted(let snapshot):
            sessionStarted = true
            if var service = status {
                let actions = service.start(snapshot: snapshot, now: now)
                status = service
                out += perform(actions, service: service.channel, now: now)
            }
        case .session(let update):
            guard sessionStarted else { break }
            if var service = status {
                let actions = service.sessionUpdated(update, now: now)
                status = service
                out += perform(actions, service: service.channel, now: now)
            }
        case .commandFinished(let channel, let command, let result):
            if case .rejected(let reason) = result {
                logger.notice("command rejected: \(reason)", ["channel": "\(channel)", "command": "\(command)"])
            }
            if let service = status, service.channel == channel {
                out += perform(service.commandFinished(command, result: result), service: channel, now: now)
            } else if let service = input, service.channel == channel {
                out += perform(service.commandFinished(command, result: result), service: channel, now: now)
            }
        case .statusArtwork(let itemId, let bytes):
            if var service = status {
                let actions = service.artworkArrived(itemId: itemId, bytes: bytes)
                status = service
                out += perform(actions, service: service.channel, now: now)
            }
        case .classicChildren(let ticket, let answer):
            if var service = classic {
                let actions = service.browseAnswered(ticket, answer, now: now)
                classic = service
                out += perform(actions, now: now)
            }
        case .classicItem(let ticket, let item):
            if var service = classic {
                let actions = service.itemAnswered(ticket, item, now: now)
                classic = service
                out += perform(actions, now: now)
            }
        case .classicArtwork(let ticket, let bytes):
            if var service = classic {
                let actions = service.artworkAnswered(ticket, bytes, now: now)
                classic = service
                out += perform(actions, now: now)
            }
        }
        return out
    }

    mutating func tick(now: Duration) -> [OutgoingMessage] {
        var out: [OutgoingMessage] = []
        if var service = status {
            let actions = service.tick(now: now)
            status = service
            out += perform(actions, service: service.channel, now: now)
        }
        if var service = classic {
            let actions = service.tick(now: now)
            classic = service
            out += perform(actions, now: now)
        }
        return out
    }

    var nextDeadline: Duration? { [status?.nextDeadline, classic?.nextDeadline].compactMap { $0 }.min() }

    /// The connection is over: end subscriptions and pending core work.
    mutating func stop() { bridge.stop() }

    // MARK: Performing service actions

    private mutating func subscribeToSession() {
        guard !sessionSubscribed else { return }
        sessionSubscribed = true
        let session = core.session
        let bridge = self.bridge
        bridge.run {
            let updates = await session.subscribe()
            let snapshot = await session.snapshot
            bridge.forward(updates) { .session($0) }
            return .sessionStarted(snapshot)
        }
    }

    private func perform(_ actions: [AAPPlaybackStatusService.Action], service channel: UInt8, now: Duration) -> [OutgoingMessage] {
        var out: [OutgoingMessage] = []
        for action in actions {
            switch action {
            case .send(let message): out.append(message)
            case .command(let command, let source): send(command, source, channel)
            case .fetchArtwork(let uri, let width, let height, let itemId): fetchStatusArtwork(uri, width, height, itemId)
            case .log(let entry): entry.write(to: logger.with("channel", "\(channel)"))
            }
        }
        return out
    }

    private func perform(_ actions: [AAPInputService.Action], service channel: UInt8, now: Duration) -> [OutgoingMessage] {
        var out: [OutgoingMessage] = []
        for action in actions {
            switch action {
            case .send(let message): out.append(message)
            case .command(let command, let source): send(command, source, channel)
            case .log(let entry): entry.write(to: logger.with("channel", "\(channel)"))
            }
        }
        return out
    }

    private func perform(_ actions: [ClassicBrowserService.Action], now: Duration) -> [OutgoingMessage] {
        var out: [OutgoingMessage] = []
        let browse = core.browse
        let artwork = core.artwork
        for action in actions {
            switch action {
            case .send(let message):
                out.append(message)
            case .browse(let ticket, let parentId, let page, let pageSize, let car):
                bridge.run { .classicChildren(ticket, await browse.children(of: parentId, page: page, pageSize: pageSize, for: car)) }
            case .fetchItem(let ticket, let itemId, let car):
                bridge.run { .classicItem(ticket, await browse.item(id: itemId, for: car)) }
            case .fetchArtwork(let ticket, let uri, let width, let height):
                bridge.run {
                    guard let key = await artwork.register(uri) else { return .classicArtwork(ticket, nil) }
                    return .classicArtwork(ticket, try? await artwork.image(for: key, width: width, height: height).bytes)
                }
            case .command(let command, let source):
                if let channel = classic?.channel { send(command, source, channel) }
            case .problem:
                break  // the service logged it already
            }
        }
        return out
    }

    private func send(_ command: SessionCommand, _ source: CommandSource, _ channel: UInt8) {
        logger.debug("command from the car", ["channel": "\(channel)", "command": "\(command)"])
        bridge.perform(command, from: source, on: core.session) { .commandFinished(service: channel, command, $0) }
    }

    private func fetchStatusArtwork(_ uri: String, _ width: Int, _ height: Int, _ itemId: String) {
        let artwork = core.artwork
        bridge.run {
            guard let key = await artwork.register(uri) else { return .statusArtwork(itemId: itemId, bytes: nil) }
            let image = try? await artwork.image(for: key, width: width, height: height)
            return .statusArtwork(itemId: itemId, bytes: image?.bytes)
        }
    }
}

/// "Make Model (head unit make model sw)" from whichever fields the car filled in.
func describe(_ identity: HeadUnitIdentity) -> String {
    let car = [identity.make, identity.model, identity.year].compactMap { $0 }.filter { !$0.isEmpty }
    let unit = [identity.headUnitMake, identity.headUnitModel, identity.headUnitSoftwareVersion].compactMap { $0 }.filter { !$0.isEmpty }
    let text = car.joined(separator: " ") + (unit.isEmpty ? "" : " (\(unit.joined(separator: " ")))")
    return text.isEmpty ? "unnamed" : text
}
