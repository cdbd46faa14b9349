import DashportArtwork
import DashportLink
import DashportLog
import DashportServices
import DashportSession

/// The AAP media playback status service (Service field 9) as a car connection hosts it: its
/// session subscription, its commands and its covers.
struct HostedPlaybackStatus: HostedService {
    /// What the core hands this service.
    enum Input: Sendable {
        /// The session's state when the subscription began: the service starts then.
        case sessionStarted(SessionSnapshot)
        case session(SessionUpdate)
        case commandFinished(SessionCommand, CommandResult)
        /// A cover (nil: none, or it failed).
        case artwork(itemId: String, bytes: [UInt8]?)
        /// The cover is not in the cache; it is being fetched.
        case artworkNotCached(itemId: String)
    }

    var service: AAPPlaybackStatusService
    /// Whether the session's current state is in (updates before it are dropped).
    var started = false

    static func make(for service: CarService, host: ServiceHost, now: Duration) -> (Self, [OutgoingMessage])? {
        guard case .mediaPlaybackStatus = service.kind else { return nil }
        var configuration = AAPPlaybackStatusService.Configuration()
        configuration.sessionClockOrigin = AAPPlaybackStatusService.Configuration.sessionClockOrigin(
            linkNow: now, sessionNow: host.core.clock.now)
        let status = AAPPlaybackStatusService(channel: service.channel, car: host.carName, configuration: configuration)
        let session = host.core.session
        host.attach { post in
            let id = await session.subscribe(started: { _ = post(Input.sessionStarted($0)) }) { update in
                post(Input.session(update))
            }
            return { await session.unsubscribe(id) }
        }
        // It starts once the session's current state is in.
        return (HostedPlaybackStatus(service: status), [])
    }

    mutating func receive(channel: UInt8, messageId: UInt16, body: [UInt8], host: ServiceHost, now: Duration) -> [OutgoingMessage] {
        perform(service.receive(messageId: messageId, body: body, now: now), host: host)
    }

    mutating func handle(_ payload: any Sendable, host: ServiceHost, now: Duration) -> [OutgoingMessage] {
        guard let input = payload as? Input else { return [] }
        switch input {
        case .sessionStarted(let snapshot):
            started = true
            return perform(service.start(snapshot: snapshot, now: now), host: host)
        case .session(let update):
            guard started else { return [] }
            return perform(service.sessionUpdated(update, now: now), host: host)
        case .commandFinished(let command, let result):
            logRejection(command, result, host: host)
            return perform(service.commandFinished(command, result: result), host: host)
        case .artwork(let itemId, let bytes):
            return perform(service.artworkArrived(itemId: itemId, bytes: bytes), host: host)
        case .artworkNotCached(let itemId):
            return perform(service.artworkNotCached(itemId: itemId), host: host)
        }
    }

    mutating func tick(host: ServiceHost, now: Duration) -> [OutgoingMessage] {
        perform(service.tick(now: now), host: host)
    }

    var nextDeadline: Duration? { service.nextDeadline }

    private func perform(_ actions: [AAPPlaybackStatusService.Action], host: ServiceHost) -> [OutgoingMessage] {
        var out: [OutgoingMessage] = []
        for action in actions {
            switch action {
            case .send(let message): out.append(message)
            case .command(let command, let source):
                host.perform(command, from: source) { Input.commandFinished(command, $0) }
            case .fetchArtwork(let uri, let width, let height, let itemId):
                // The cache first (the metadata and statuses wait for this answer), then the
                // fetch: whether the first metadata has the cover depends on what is cached, not
                // on how fast the machine scales it.
                let artwork = host.core.artwork
                let (bridge, channel) = (host.bridge, host.channel)
                let notCached: @Sendable () -> Void = {
                    bridge.post(ServiceInput(channel: channel, Input.artworkNotCached(itemId: itemId)))
                }
                host.run {
                    guard let key = await artwork.register(uri) else { return Input.artwork(itemId: itemId, bytes: nil) }
                    if let cached = await artwork.cachedImage(for: key, width: width, height: height) {
                        return Input.artwork(itemId: itemId, bytes: cached.bytes)
                    }
                    notCached()
                    let image = try? await artwork.image(for: key, width: width, height: height)
                    return Input.artwork(itemId: itemId, bytes: image?.bytes)
                }
            case .log(let entry): entry.write(to: host.logger)
            }
        }
        return out
    }
}

/// A rejected command is worth a line: the car pressed something the session would not do.
func logRejection(_ command: SessionCommand, _ result: CommandResult, host: ServiceHost) {
    if case .rejected(let reason) = result {
        host.logger.notice("command rejected: \(reason)", ["command": "\(command)"])
    }
}
