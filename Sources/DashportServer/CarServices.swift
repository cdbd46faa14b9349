import DashportDigest
import DashportBrowse
import DashportLink
import DashportLog
import DashportServices
import DashportSession

/// Input for the services of one car that comes from outside the link: core answers and pushes.
enum ServiceInput: Sendable {
    /// The session's state when the playback status service's subscription began.
    case sessionStarted(SessionSnapshot)
    /// A session update for the playback status service.
    case session(SessionUpdate)
    /// A session update for the media channel, before its artwork keys are known.
    case mediaSession(SessionUpdate)
    /// The artwork keys of the oldest media-channel session update waiting for them.
    case mediaSessionKeys([String: String])
    /// Answers and pushes for the Dashport media channel.
    case mediaBrowse(MediaChannelTicket, BrowseAnswer, artworkKeys: [String: String], carReports: [BrowseReport] = [])
    case mediaItem(MediaChannelTicket, BrowseItem?, artworkKeys: [String: String], carReports: [BrowseReport] = [])
    case mediaCommand(MediaChannelTicket, CommandResult)
    case mediaArtwork(MediaChannelTicket, Result<MediaChannelArtworkImage, MediaChannelArtworkFailure>)
    case browseNotification(BrowseNotification)
    /// The session declared (true) or withdrew remote playback: the input service re-binds keys.
    case remotePlayback(declared: Bool)
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
    let answers: AnswerMemo
    var carName = "car"
    var status: AAPPlaybackStatusService?
    var input: AAPInputService?
    var classic: ClassicBrowserService?
    var media: MediaChannelService?
    var statusSubscribed = false
    var sessionStarted = false
    var mediaSubscribed = false
    /// The media channel's session updates not handed in yet (each waits for its artwork keys).
    var mediaUpdates: MediaUpdateQueue
    /// Remote playback as the input service was last told (it hears only changes).
    var remotePlaybackDeclared = false

    init(context: ServerContext, logger: Logger, inputs: CarMailbox) {
        self.core = context.core
        self.logger = logger
        self.bridge = CoreBridge(inputs: inputs)
        self.answers = context.core.answers
        self.mediaUpdates = MediaUpdateQueue(limit: context.core.session.configuration.subscriberBufferLimit)
    }

    // MARK: Link events

    /// Reacts to what the link reports; returns service messages to send.
    mutating func linkEvent(_ event: LinkEvent, now: Duration) -> [OutgoingMessage] {
        switch event {
        case .versionNegotiated:
            break  // logged by the link, which knows what the car asked for
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
                linkNow: now, sessionNow: core.clock.now)
            status = AAPPlaybackStatusService(channel: service.channel, car: carName, configuration: configuration)
            subscribeStatusToSession()
            // The status service starts once the session's current state is in (`sessionStarted`).
            return []
        case .input(let keycodes):
            let inputService = AAPInputService(channel: service.channel, car: carName, carKeyCodes: keycodes)
            input = inputService
            remotePlaybackDeclared = false  // the subscription's replay tells the new service
            subscribeInputToRemotePlayback()
            return perform(inputService.start(), service: service.channel, now: now)
        case .mediaBrowser:
            classic = ClassicBrowserService(channel: service.channel, car: carName, logger: logger)
            return []
        case .vendorExtension(let name, let data) where name == LinkConfiguration.dashportMediaServiceName:
            return openMediaChannel(channel: service.channel, profileData: data)
        default:
            return []
        }
    }

    private mutating func closed(_ service: CarService) {
        if status?.channel == service.channel { status = nil }
        if input?.channel == service.channel { input = nil }
        if classic?.channel == service.channel { classic = nil }
        if media?.channel == service.channel { media = nil }
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
        if var service = media, service.channel == channel {
            let actions = service.receive(messageId: messageId, body: body, now: core.clock.now)
            media = service
            return perform(actions)
        }
        logger.debug(
            "service message with no service to take it",
            [
                "channel": "\(channel)", "message": Hex.id(messageId), "bytes": "\(body.count)",
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
        case .mediaSession(let update):
            out += mediaSessionUpdated(update)
        case .mediaSessionKeys(let keys):
            out += mediaSessionKeysArrived(keys)
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
        case .mediaBrowse, .mediaItem, .mediaCommand, .mediaArtwork, .browseNotification:
            out += handleMedia(serviceInput)
        case .remotePlayback(let declared):
            guard declared != remotePlaybackDeclared else { break }
            remotePlaybackDeclared = declared
            if var service = input {
                let actions = service.remotePlaybackChanged(declared: declared)
                input = service
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

    /// The input service binds the volume keys only while remote playback is declared: each
    /// remote-playback update is posted, and ``handle(_:now:)`` passes on only the changes.
    private func subscribeInputToRemotePlayback() {
        let session = core.session
        bridge.attach { post in
            let id = await session.subscribe { update in
                guard case .remotePlayback(let remote) = update else { return true }
                return post(.remotePlayback(declared: remote != nil))
            }
            return { await session.unsubscribe(id) }
        }
    }

    /// The session's state, then every update, for the playback status service.
    private mutating func subscribeStatusToSession() {
        guard !statusSubscribed else { return }
        statusSubscribed = true
        let session = core.session
        bridge.attach { post in
            let id = await session.subscribe(started: { _ = post(.sessionStarted($0)) }) { update in
                post(.session(update))
            }
            return { await session.unsubscribe(id) }
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
