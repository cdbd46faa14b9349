import DashportArtwork
import DashportBrowse
import DashportLink
import DashportLog
import DashportServices
import DashportSession

/// The Dashport media channel (`dashport.media`, a vendor extension) as a car connection hosts
/// it: browse, search, play, commands, state pushes and artwork, between the car and the core.
struct HostedMediaChannel: HostedService {
    enum Input: Sendable {
        /// A session update, before its artwork keys are known.
        case session(SessionUpdate)
        /// The artwork keys of the oldest session update waiting for them.
        case sessionKeys([String: String])
        case browse(MediaChannelTicket, BrowseAnswer, artworkKeys: [String: String], carReports: [BrowseReport] = [])
        case item(MediaChannelTicket, BrowseItem?, artworkKeys: [String: String], carReports: [BrowseReport] = [])
        case command(MediaChannelTicket, CommandResult)
        case artwork(MediaChannelTicket, Result<MediaChannelArtworkImage, MediaChannelArtworkFailure>)
        case browseNotification(BrowseNotification)
    }

    var service: MediaChannelService
    /// The session updates not handed in yet (each waits for its artwork keys).
    var updates: MediaUpdateQueue

    static func make(for service: CarService, host: ServiceHost, now: Duration) -> (Self, [OutgoingMessage])? {
        guard case .vendorExtension(let name, let profileData) = service.kind, name == LinkConfiguration.dashportMediaServiceName
        else { return nil }
        let core = host.core
        let server = MediaChannelServerInfo(name: "Dashport", version: DashportVersion.current, supportsSearch: core.browse.supportsSearch)
        var channel = MediaChannelService(
            channel: service.channel, carId: host.carName, profileData: profileData, server: server,
            logger: host.connectionLogger)  // the service adds car and channel itself
        let actions = channel.open(now: core.clock.now)
        var hosted = HostedMediaChannel(
            service: channel, updates: MediaUpdateQueue(limit: core.session.configuration.subscriberBufferLimit))
        // Its own session subscription (which starts with the current state) and the browse core's
        // children-changed notifications: handlers the cores call, which post into the car's
        // mailbox; no task waits on either.
        let session = core.session
        let browse = core.browse
        host.attach { post in
            let id = await session.subscribe { post(Input.session($0)) }
            return { await session.unsubscribe(id) }
        }
        host.attach { post in
            let key = await browse.subscribe { post(Input.browseNotification($0)) }
            return { await browse.unsubscribe(key) }
        }
        let first = hosted.perform(actions, host: host)
        return (hosted, first)
    }

    mutating func receive(channel: UInt8, messageId: UInt16, body: [UInt8], host: ServiceHost, now: Duration) -> [OutgoingMessage] {
        perform(service.receive(messageId: messageId, body: body, now: host.core.clock.now), host: host)
    }

    mutating func handle(_ payload: any Sendable, host: ServiceHost, now: Duration) -> [OutgoingMessage] {
        guard let input = payload as? Input else { return [] }
        let actions: [MediaChannelAction]
        switch input {
        case .session(let update):
            return handIn(updates.append(update), host: host)
        case .sessionKeys(let keys):
            let (update, next) = updates.keysArrived()
            guard let update else { return [] }
            return handIn(update, keys: keys, host: host) + handIn(next, host: host)
        case .browse(let ticket, let answer, let keys, let reports):
            return answered(ticket, answer, artworkKeys: keys, carReports: reports, encoded: nil, host: host)
        case .item(let ticket, let item, let keys, let reports):
            actions =
                service.browseAnswered(ticket, item: item, artworkKeys: keys)
                + reports.compactMap(ServerCore.sessionError(for:)).flatMap { service.carReport($0) }
        case .command(let ticket, let result): actions = service.commandAnswered(ticket, result)
        case .artwork(let ticket, let result): actions = service.artworkAnswered(ticket, result)
        case .browseNotification(let notification):
            // The car may ask again as soon as it is told: the memo must not answer with the old
            // page then, whether or not the core's own invalidation task has run yet.
            if case .childrenChanged(let parentId) = notification { host.answers.invalidate(parentId) }
            actions = service.browseNotified(notification)
        }
        return perform(actions, host: host)
    }

    /// A browse answer handed to the service: BROWSE_RESULT, then what the rules told this car's
    /// profile about the page, as session errors.
    mutating func answered(
        _ ticket: MediaChannelTicket, _ answer: BrowseAnswer, artworkKeys: [String: String], carReports: [BrowseReport],
        encoded: EncodedItemPage?, host: ServiceHost
    ) -> [OutgoingMessage] {
        var actions = service.browseAnswered(ticket, answer, artworkKeys: artworkKeys, encoded: encoded)
        for report in carReports {
            if let error = ServerCore.sessionError(for: report) { actions += service.carReport(error) }
        }
        return perform(actions, host: host)
    }

    /// Hands in what the queue says is ready, and starts the registration it asks for.
    private mutating func handIn(_ step: MediaUpdateQueue.Step, host: ServiceHost) -> [OutgoingMessage] {
        var out: [OutgoingMessage] = []
        for update in step.ready { out += handIn(update, keys: [:], host: host) }
        if let uris = step.register {
            let artwork = host.core.artwork
            host.run { Input.sessionKeys(await artworkKeys(for: uris, artwork)) }
        }
        return out
    }

    private mutating func handIn(_ update: SessionUpdate, keys: [String: String], host: ServiceHost) -> [OutgoingMessage] {
        perform(service.sessionUpdated(update, artworkKeys: keys, now: host.core.clock.now), host: host)
    }
}
