// FuzzServices: the Dashport media channel. Shared with the services tests.
import DashportClock
import DashportBrowse
import DashportMessages
import DashportServices
import DashportSession

extension ServicesFuzz {
    /// The media channel service with the tickets it handed out and the artwork keys it was given.
    ///
    /// Config: the car's profile (fields, or any bytes), caps, search support, session updates
    /// before `open`. Ops: 0 a request from fields (request ids from a small range, so they repeat),
    /// 1 any id and body, 2 a browse answer, 3 a command result, 4 an artwork result (each to a
    /// pending ticket picked by the input), 5 a session update, 6 a children-changed notification or
    /// the clock moving, 7 an answer of any kind to any ticket ever handed out.
    /// Checks: in flight never over the cap, and nothing left once every ticket is answered; a
    /// request gets either one ticket of its family or one answer echoing its id at once, and a
    /// ticket's answer echoes the id once, only for a pending ticket of its kind; every message decodes as its id's type; artwork keys on the wire are
    /// only keys the driver handed in, never a URI or empty; pushes are stamped with `now`.
    struct MediaRun {
        enum Kind: Equatable { case browse, item, command, artwork }

        var service: MediaChannelService
        var reader: Reader
        var now = ClockInstant(milliseconds: 5_000)
        var issued: [MediaChannelTicket] = []
        /// Pending tickets: their kind and the car's request id when the driver knows it.
        var pending: [MediaChannelTicket: (kind: Kind, requestId: UInt32?)] = [:]
        var handedKeys: Set<String> = []
        /// Messages sent, by id.
        var sent: [DashportMedia.MessageId: Int] = [:]

        init(_ r: inout Reader) {
            let flags = r.byte()
            let profile: [UInt8] =
                flags & 0x01 != 0
                ? r.take(r.length())
                : DashportMedia.CarProfile(
                    maxRootTabs: r.maybe { UInt32($0.byte()) }, maxItemsPerList: r.maybe { UInt32($0.byte()) },
                    artworkSizes: r.bool() ? [DashportMedia.ArtworkSize(width: UInt32(r.u16()), height: UInt32(r.u16()))] : [],
                    errorScreenSupport: r.maybe { DashportMedia.ErrorScreenSupport(rawValue: Int32($0.byte() % 4)) },
                    drawableErrorScreens: r.bool() ? [.notSupported, .authenticationExpired] : [], supportsSearch: r.maybe { $0.bool() },
                    locale: r.maybe { $0.string() }
                ).serializedBytes()
            let configuration = MediaChannelConfiguration(
                maxInFlightRequests: r.pick([32, 1, 2, 0]), maxPageSize: r.pick([500, 1, 3]), defaultPageSize: r.pick([100, 0, 2]),
                maxIdBytes: r.pick([1024, 4, 0]), maxQueryBytes: r.pick([1024, 3]), defaultArtworkSizePx: r.pick([256, 0, 5000]),
                maxArtworkSizePx: r.pick([2048, 1, 64]))
            service = MediaChannelService(
                channel: r.byte(), carId: car, profileData: profile,
                server: MediaChannelServerInfo(name: "Dashport", version: "fuzz", supportsSearch: flags & 0x02 != 0),
                configuration: configuration)
            reader = r
            for _ in 0..<(flags >> 2 & 3) { update() }  // remembered, sent after the hello
        }

        mutating func run() {
            let opened = service.open(now: now)
            fuzzCheck(opened.first.map { sentId($0) == .serverHello } == true, "open did not start with SERVER_HELLO")
            take(opened)
            while !reader.isAtEnd { perform(reader.byte()) }
            // The core answers everything still pending: nothing may be left in flight.
            for ticket in pending.keys.sorted() {
                if let kind = pending[ticket]?.kind { answer(ticket, kind) }
            }
            fuzzCheck(service.inFlightCount == 0, "\(service.inFlightCount) requests in flight after every answer came")
        }

        private mutating func perform(_ op: UInt8) {
            switch op % 8 {
            case 0: request()
            case 1:
                let id = reader.pick(Self.mediaIds) { $0.u16() }
                take(service.receive(messageId: id, body: reader.take(reader.length()), now: now))
            case 2:
                guard let (ticket, kind) = pickPending([.browse, .item]) else { return }
                answer(ticket, kind)
            case 3:
                guard let (ticket, kind) = pickPending([.command]) else { return }
                answer(ticket, kind)
            case 4:
                guard let (ticket, kind) = pickPending([.artwork]) else { return }
                answer(ticket, kind)
            case 5: update()
            case 6:
                if reader.bool() {
                    take(service.browseNotified(.childrenChanged(parentId: reader.maybe { $0.string() })))
                } else {
                    now = now.advanced(byMs: Int64(reader.u16()))
                }
            default:
                let ticket = issued.isEmpty || reader.bool() ? MediaChannelTicket(rawValue: UInt64(reader.u16())) : reader.pick(issued)
                answer(ticket, reader.pick([.browse, .item, .command, .artwork]))
            }
        }

        // MARK: - Car requests

        private mutating func request() {
            let requestId = UInt32(reader.byte() % 8)
            let (id, body, kinds): (DashportMedia.MessageId, [UInt8], [Kind])
            switch reader.byte() % 8 {
            case 0:
                (id, kinds) = (.getChildren, [.browse])
                body = DashportMedia.GetChildren(
                    requestId: requestId, parentId: reader.string(), page: reader.maybe { UInt32($0.u16()) },
                    pageSize: reader.maybe { UInt32($0.u16()) }
                ).serializedBytes()
            case 1:
                (id, kinds) = (.getItem, [.item])
                body = DashportMedia.GetItem(requestId: requestId, id: reader.string()).serializedBytes()
            case 2:
                (id, kinds) = (.search, [.browse])
                body = DashportMedia.Search(
                    requestId: requestId, query: reader.string(), page: reader.maybe { UInt32($0.byte()) },
                    pageSize: reader.maybe { UInt32($0.byte()) }
                ).serializedBytes()
            case 3:
                (id, kinds) = (.playFromMediaId, [.command])
                body = DashportMedia.PlayFromMediaId(requestId: requestId, mediaId: reader.string()).serializedBytes()
            case 4:
                (id, kinds) = (.playFromSearch, [.command])
                let query = reader.string()
                let focus = reader.maybe { DashportMedia.SearchFocus(rawValue: Int32($0.byte() % 9)) }
                body = DashportMedia.PlayFromSearch(requestId: requestId, query: query, focus: focus).serializedBytes()
            case 5:
                (id, kinds) = (.playbackCommand, [.command])
                body = DashportMedia.PlaybackCommand(requestId: requestId, command: playbackCommand()).serializedBytes()
            case 6:
                (id, kinds) = (.getArtwork, [.artwork])
                let key = reader.pick(["key-1", "", "k"]) { $0.string() }
                let (width, height) = (reader.maybe { UInt32($0.u16()) * 3 }, reader.maybe { UInt32($0.u16()) })
                body = DashportMedia.GetArtwork(requestId: requestId, key: key, width: width, height: height).serializedBytes()
            default:
                (id, kinds) = (.carProfile, [])
                body = reader.take(reader.length())
            }
            let actions = service.receive(messageId: UInt16(truncatingIfNeeded: id.rawValue), body: body, now: now)
            let issuedBefore = issued.count
            take(actions, requestId: requestId)
            guard let family = kinds.first else {
                fuzzCheck(actions.isEmpty, "CAR_PROFILE was answered: \(actions)")
                return
            }
            let answered = actions.filter { sentId($0) == Self.resultId(family) }.count
            let ticketed = issued.count - issuedBefore
            fuzzCheck(actions.count == 1 && answered + ticketed == 1, "\(id) got \(actions.count) actions: \(actions)")
            if let ticket = issued.last, ticketed == 1, let kind = pending[ticket]?.kind {
                fuzzCheck(kinds.contains(kind), "\(id) got a \(kind) ticket")
            }
        }

        private mutating func playbackCommand() -> DashportMedia.PlaybackCommand.Command? {
            let empty = DashportMedia.Empty()
            switch reader.byte() % 20 {
            case 0: return .play(empty)
            case 1: return .seekToMs(reader.bool() ? reader.int64() : -reader.millis())
            case 2: return .skipToQueueItem(UInt32(reader.u16()) << 16)
            case 3: return .setRate(reader.pick([1, -1, 0, 16.5, .nan, .infinity, 1e308]))
            case 4: return .setRepeatMode(DashportMedia.RepeatMode(rawValue: Int32(Int8(bitPattern: reader.byte()))))
            case 5: return .setShuffle(reader.bool())
            case 6: return .jumpForward(DashportMedia.Jump(ms: reader.maybe { UInt32($0.u16()) << UInt32($0.byte() % 17) }))
            case 7: return .jumpBack(DashportMedia.Jump(ms: reader.maybe { UInt32($0.u16()) << 16 }))
            case 8:
                let extras = (0..<Int(reader.byte() % 4)).map { _ in
                    let key = reader.string()
                    let value: DashportMedia.CustomAction.Extra.Value? =
                        switch reader.byte() % 5 {
                        case 0: .stringValue(reader.string())
                        case 1: .intValue(reader.int64())
                        case 2: .doubleValue(reader.pick([.nan, -0.0, 1e300]))
                        case 3: .boolValue(reader.bool())
                        default: nil
                        }
                    return DashportMedia.CustomAction.Extra(key: key, value: value)
                }
                return .customAction(DashportMedia.CustomAction(name: reader.string(), extras: extras))
            case 9:
                let until: [DashportMedia.SleepTimer.Until?] = [.durationMs(-1), .endOfTrack(empty), nil]
                return .setSleepTimer(DashportMedia.SleepTimer(until: reader.pick(until) { .durationMs($0.int64()) }))
            case 10: return .cancelSleepTimer(empty)
            case 11: return .pause(empty)
            case 12: return .skipToNext(empty)
            case 13: return .skipToPrevious(empty)
            case 14: return .stop(empty)
            case 15: return .setRate(Double(reader.u16()) / 1000)
            case 16: return .setDeviceVolume(reader.pick([0.5, -1, 2, .nan, .infinity, 0, 1]))
            case 17: return .adjustDeviceVolume(Int32(Int8(bitPattern: reader.byte())))
            case 18: return .setDeviceMuted(reader.bool())
            default: return nil
            }
        }

        // MARK: - Answers from the core

        private mutating func pickPending(_ kinds: [Kind]) -> (MediaChannelTicket, Kind)? {
            let candidates = pending.filter { kinds.contains($0.value.kind) }.keys.sorted()
            guard !candidates.isEmpty else { return nil }
            let ticket = candidates[Int(reader.byte()) % candidates.count]
            return pending[ticket].map { (ticket, $0.kind) }
        }

        /// Answers `ticket` as if it were of `kind`: a pending ticket of that kind gets exactly one
        /// answer echoing its request id; anything else gets nothing and stays as it was.
        private mutating func answer(_ ticket: MediaChannelTicket, _ kind: Kind) {
            let before = pending[ticket]
            let keys = artworkKeys()
            let actions: [MediaChannelAction]
            switch kind {
            case .browse: actions = service.browseAnswered(ticket, browseAnswer(&reader), artworkKeys: keys)
            case .item: actions = service.browseAnswered(ticket, item: reader.maybe(browseItem), artworkKeys: keys)
            case .command: actions = service.commandAnswered(ticket, commandResult(&reader))
            case .artwork:
                let result: Result<MediaChannelArtworkImage, MediaChannelArtworkFailure> =
                    reader.bool()
                    ? .success(
                        MediaChannelArtworkImage(
                            bytes: imageBytes(&reader) ?? [], mimeType: reader.pick(["image/jpeg", ""]),
                            width: reader.pick([256, 0, -1, .max]), height: Int(reader.u16())))
                    : .failure(
                        MediaChannelArtworkFailure(
                            code: reader.pick(MediaChannelArtworkFailure.Code.allCases),
                            message: reader.string()))
                actions = service.artworkAnswered(ticket, result)
            }
            take(actions, requestId: before?.requestId)
            guard let before, before.kind == kind else {
                fuzzCheck(actions.isEmpty, "an answer to \(ticket), not a pending \(kind) ticket, was sent: \(actions)")
                return
            }
            fuzzCheck(actions.count == 1 && sentId(actions[0]) == Self.resultId(kind), "\(kind) answer gave \(actions)")
            pending[ticket] = nil
        }

        /// Keys for the artwork URIs, as the driver registers them: sometimes a URI comes back as its
        /// own key or an empty one (a registry bug the service must not pass on).
        private mutating func artworkKeys() -> [String: String] {
            var keys: [String: String] = [:]
            for case let uri? in Reader.uris where reader.bool() {
                keys[uri] = reader.pick(["key-" + String(uri.count), "", uri])
            }
            handedKeys.formUnion(keys.filter { $0.key != $0.value && !$0.value.isEmpty }.values)
            return keys
        }

        private mutating func update() {
            let update = sessionUpdate(&reader)
            take(service.sessionUpdated(update, artworkKeys: artworkKeys(), now: now))
        }

        // MARK: - Checking what comes out

        private func sentId(_ action: MediaChannelAction) -> DashportMedia.MessageId? {
            if case .send(let message) = action { return DashportMedia.MessageId(rawValue: Int32(message.messageId)) }
            return nil
        }

        /// The ids of the media channel schema (0x8000 + 1…17) and a couple beyond.
        static let mediaIds: [UInt16] = (0..<20).map { 0x8000 + $0 }

        static func resultId(_ kind: Kind) -> DashportMedia.MessageId {
            switch kind {
            case .browse, .item: .browseResult
            case .command: .commandResult
            case .artwork: .artworkResult
            }
        }

        /// Checks every action; `requestId` is the id a result in them must echo, when known.
        private mutating func take(_ actions: [MediaChannelAction], requestId: UInt32? = nil) {
            let configuration = service.configuration
            fuzzCheck(
                service.inFlightCount <= configuration.maxInFlightRequests && service.inFlightCount == service.pendingTickets.count,
                "\(service.inFlightCount) requests in flight, cap \(configuration.maxInFlightRequests)")
            for action in actions {
                switch action {
                case .send(let message):
                    checkSize(message, channel: service.channel)
                    checkMessage(message, requestId: requestId)
                    sent[DashportMedia.MessageId(rawValue: Int32(message.messageId)), default: 0] += 1
                case .browse(let ticket, let request):
                    switch request {
                    case .children(let parentId, let page, let pageSize, _), .search(let parentId, let page, let pageSize, _):
                        fuzzCheck(page >= 0 && (1...configuration.maxPageSize).contains(pageSize), "page \(page) of \(pageSize)")
                        fuzzCheck(parentId.utf8.count <= max(configuration.maxIdBytes, configuration.maxQueryBytes), "a long id")
                        issue(ticket, .browse, requestId)
                    case .item(let id, _):
                        fuzzCheck(!id.isEmpty && id.utf8.count <= configuration.maxIdBytes, "item id '\(id)'")
                        issue(ticket, .item, requestId)
                    }
                case .command(let ticket, _, let source):
                    fuzzCheck(source == .dashportCar(id: car), "a command from \(source)")
                    issue(ticket, .command, requestId)
                case .artwork(let ticket, let key, let width, let height):
                    let sides = 1...configuration.maxArtworkSizePx
                    fuzzCheck(!key.isEmpty && sides.contains(width) && sides.contains(height), "artwork '\(key)' at \(width)×\(height)")
                    issue(ticket, .artwork, requestId)
                }
            }
        }

        private mutating func issue(_ ticket: MediaChannelTicket, _ kind: Kind, _ requestId: UInt32?) {
            fuzzCheck(pending[ticket] == nil && !issued.contains(ticket), "\(ticket) handed out twice")
            issued.append(ticket)
            pending[ticket] = (kind, requestId)
        }

        private func checkMessage(_ message: OutgoingMessage, requestId: UInt32?) {
            var keys: [String?] = []
            var echoed: UInt32?
            switch DashportMedia.MessageId(rawValue: Int32(message.messageId)) {
            case .serverHello: _ = decode(DashportMedia.ServerHello.self, message.body)
            case .childrenChanged: _ = decode(DashportMedia.ChildrenChanged.self, message.body)
            case .sessionError: _ = decode(DashportMedia.SessionError.self, message.body)
            case .sleepTimerFired: _ = decode(DashportMedia.SleepTimerFired.self, message.body)
            case .remotePlaybackState:
                let state = decode(DashportMedia.RemotePlaybackState.self, message.body)
                fuzzCheck(state?.remote.map { (0...1).contains($0.volume) } ?? true, "REMOTE_PLAYBACK_STATE volume outside 0…1")
            case .sleepTimerState:
                let state = decode(DashportMedia.SleepTimerState.self, message.body)
                fuzzCheck(
                    state.map { $0.sentAtMs == now.milliseconds && ($0.remainingMs ?? 0) >= 0 } ?? true,
                    "SLEEP_TIMER_STATE not stamped with now, or negative time left")
            case .browseResult:
                let result = decode(DashportMedia.BrowseResult.self, message.body)
                echoed = result?.requestId
                if case .items(let page)? = result?.outcome { keys = page.items.map(\.artworkKey) }
            case .commandResult: echoed = decode(DashportMedia.CommandResult.self, message.body)?.requestId
            case .artworkResult: echoed = decode(DashportMedia.ArtworkResult.self, message.body)?.requestId
            case .playbackState:
                let state = decode(DashportMedia.PlaybackState.self, message.body)
                fuzzCheck(state.map { $0.sentAtMs == now.milliseconds } ?? true, "PLAYBACK_STATE not stamped with now")
                keys = state?.customActions.map(\.iconArtworkKey) ?? []
            case .mediaItemState: keys = [decode(DashportMedia.MediaItemState.self, message.body)?.item?.artworkKey]
            case .queueState: keys = decode(DashportMedia.QueueState.self, message.body)?.items.map(\.artworkKey) ?? []
            default: fuzzViolation("media channel sent message \(message.messageId)")
            }
            if let requestId, let echoed { fuzzCheck(echoed == requestId, "an answer to request \(requestId) says \(echoed)") }
            for case let key? in keys {
                fuzzCheck(handedKeys.contains(key) && !Reader.uris.contains(key), "artwork key '\(key)' on the wire was never handed in")
            }
        }
    }
}
