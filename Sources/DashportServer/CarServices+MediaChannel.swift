import DashportArtwork
import DashportBrowse
import DashportLink
import DashportServices
import DashportSession
import DashportLog

/// The Dashport media channel (`dashport.media`): browse, search, play, commands, state pushes
/// and artwork, between the car and the shared core.
extension CarServices {
    mutating func openMediaChannel(channel: UInt8, profileData: [UInt8]) -> [OutgoingMessage] {
        let server = MediaChannelServerInfo(name: "Dashport", version: DashportVersion.current, supportsSearch: core.browse.supportsSearch)
        var service = MediaChannelService(
            channel: channel, carId: carName, profileData: profileData, server: server,
            logger: logger)  // the service adds car and channel itself
        let actions = service.open(now: core.clock.now)
        media = service
        subscribeMediaChannel()
        return perform(actions)
    }

    /// Its own session subscription (which starts with the current state) and the browse core's
    /// children-changed notifications: handlers the cores call, which post into the car's
    /// mailbox; no task waits on either.
    private mutating func subscribeMediaChannel() {
        guard !mediaSubscribed else { return }
        mediaSubscribed = true
        let session = core.session
        let browse = core.browse
        bridge.attach { post in
            let id = await session.subscribe { post(.mediaSession($0)) }
            return { await session.unsubscribe(id) }
        }
        bridge.attach { post in
            let key = await browse.subscribe { post(.browseNotification($0)) }
            return { await browse.unsubscribe(key) }
        }
    }

    /// A session update for the media channel: handed in, in order, once its artwork URIs are
    /// registered (``MediaUpdateQueue``, which also bounds what waits).
    mutating func mediaSessionUpdated(_ update: SessionUpdate) -> [OutgoingMessage] {
        guard media != nil else { return [] }
        return mediaHandIn(mediaUpdates.append(update))
    }

    /// The keys of the oldest waiting update: it goes in, then those after it that are ready.
    mutating func mediaSessionKeysArrived(_ keys: [String: String]) -> [OutgoingMessage] {
        let (update, next) = mediaUpdates.keysArrived()
        guard let update else { return [] }
        return mediaHandIn(update, keys: keys) + mediaHandIn(next)
    }

    /// Hands in what the queue says is ready, and starts the registration it asks for.
    private mutating func mediaHandIn(_ step: MediaUpdateQueue.Step) -> [OutgoingMessage] {
        var out: [OutgoingMessage] = []
        for update in step.ready { out += mediaHandIn(update, keys: [:]) }
        if let uris = step.register {
            let artwork = core.artwork
            bridge.run { .mediaSessionKeys(await artworkKeys(for: uris, artwork)) }
        }
        return out
    }

    private mutating func mediaHandIn(_ update: SessionUpdate, keys: [String: String]) -> [OutgoingMessage] {
        guard var service = media else { return [] }
        let actions = service.sessionUpdated(update, artworkKeys: keys, now: core.clock.now)
        media = service
        return perform(actions)
    }

    mutating func handleMedia(_ input: ServiceInput) -> [OutgoingMessage] {
        guard var service = media else { return [] }
        let actions: [MediaChannelAction]
        switch input {
        case .mediaBrowse(let ticket, let answer, let keys, let reports):
            actions =
                service.browseAnswered(ticket, answer, artworkKeys: keys)
                + reports.compactMap(ServerCore.sessionError(for:)).flatMap { service.carReport($0) }
        case .mediaItem(let ticket, let item, let keys, let reports):
            actions =
                service.browseAnswered(ticket, item: item, artworkKeys: keys)
                + reports.compactMap(ServerCore.sessionError(for:)).flatMap { service.carReport($0) }
        case .mediaCommand(let ticket, let result): actions = service.commandAnswered(ticket, result)
        case .mediaArtwork(let ticket, let result): actions = service.artworkAnswered(ticket, result)
        case .browseNotification(let notification):
            // The car may ask again as soon as it is told: the memo must not answer with the old
            // page then, whether or not the core's own invalidation task has run yet.
            if case .childrenChanged(let parentId) = notification { answers.invalidate(parentId) }
            actions = service.browseNotified(notification)
        default: actions = []
        }
        media = service
        return perform(actions)
    }

    func perform(_ actions: [MediaChannelAction]) -> [OutgoingMessage] {
        var out: [OutgoingMessage] = []
        let browse = core.browse
        let artwork = core.artwork
        for action in actions {
            switch action {
            case .send(let message):
                out.append(message)
            case .browse(let ticket, .children(let parentId, let page, let pageSize, let car)):
                // The fast path: a memoised answer goes back on this worker, with no task or hop.
                let key = AnswerMemo.Key(parentId: parentId, page: page, pageSize: pageSize, car: car)
                if let memo = answers.lookup(key) {
                    bridge.post(.mediaBrowse(ticket, memo.answer, artworkKeys: memo.artworkKeys, carReports: memo.carReports))
                    continue
                }
                let generation = answers.generation
                let answers = self.answers
                bridge.run {
                    let (answer, reports) = await browse.childrenReporting(of: parentId, page: page, pageSize: pageSize, for: car)
                    let keys = await artworkKeys(for: MediaChannelService.artworkURIs(in: answer), artwork)
                    // Kept with the reports this car's profile caused (a tab dropped, a branch cut), which
                    // a hit tells the car again, exactly as a fresh answer would.
                    answers.store(
                        AnswerMemo.Entry(answer: answer, artworkKeys: keys, carReports: reports), for: key, generation: generation)
                    return .mediaBrowse(ticket, answer, artworkKeys: keys, carReports: reports)
                }
            case .browse(let ticket, let request):
                bridge.run {
                    switch request {
                    case .children:
                        return nil  // answered above
                    case .search(let query, let page, let pageSize, let car):
                        let answer = await browse.search(query, page: page, pageSize: pageSize, for: car)
                        return .mediaBrowse(
                            ticket, answer, artworkKeys: await artworkKeys(for: MediaChannelService.artworkURIs(in: answer), artwork))
                    case .item(let id, let car):
                        let (item, reports) = await browse.itemReporting(id: id, for: car)
                        return .mediaItem(
                            ticket, item, artworkKeys: await artworkKeys(for: MediaChannelService.artworkURIs(in: item), artwork),
                            carReports: reports)
                    }
                }
            case .command(let ticket, let command, let source):
                logger.debug("command from the car", ["channel": "\(media?.channel ?? 0)", "command": "\(command)"])
                bridge.perform(command, from: source, on: core.session) { .mediaCommand(ticket, $0) }
            case .artwork(let ticket, let key, let width, let height):
                bridge.run {
                    do throws(ArtworkError) {
                        let image = try await artwork.image(for: ArtworkKey(rawValue: key), width: width, height: height)
                        return .mediaArtwork(
                            ticket,
                            .success(
                                MediaChannelArtworkImage(
                                    bytes: image.bytes, mimeType: image.mimeType, width: image.width, height: image.height)))
                    } catch {
                        return .mediaArtwork(ticket, .failure(MediaChannelArtworkFailure(error)))
                    }
                }
            }
        }
        return out
    }
}

/// Registers each URI with the artwork endpoint; the map holds the keys of those it accepted.
func artworkKeys(for uris: Set<String>, _ artwork: ArtworkService) async -> [String: String] {
    guard !uris.isEmpty else { return [:] }
    return await artwork.register(all: uris).mapValues(\.rawValue)
}

extension MediaChannelArtworkFailure {
    /// The wire's artwork error for an artwork pipeline error.
    init(_ error: ArtworkError) {
        let code: Code =
            switch error {
            case .notRegistered, .outsideRoots, .unsupportedScheme: .notFound
            case .tooLarge, .httpStatus, .tooManyRedirects, .timeout, .io, .backingOff, .storage: .fetchFailed
            case .decodeFailed, .tooManyPixels: .decodeFailed
            default: .unknown
            }
        self.init(code: code, message: error.carMessage)  // never a server path or URI
    }
}
