// Sources/DashportServices/ClassicBrowserService.swift - the AAP classic media browser (Service field 11), sans-IO.

public import DashportBrowse
public import DashportLog
import DashportMessages
public import DashportSession

/// The AAP classic media browser as a thin adapter over the browse core: root → sources (the
/// core's tabs) → lists → songs, paged by start/total, covers on request (aap-protocol.md §4).
///
/// Sans-IO. The driver hands it the car's messages on the browser channel
/// (``receive(messageId:body:now:)``), the core's and the artwork pipeline's answers
/// (``browseAnswered(_:_:now:)``, ``itemAnswered(_:_:now:)``, ``artworkAnswered(_:_:now:)``) and the
/// time (``tick(now:)`` at ``nextDeadline``), and performs the returned ``Action``s in order.
/// `now` is any monotonic clock reading, the same clock on every call.
///
/// - Only MEDIA_GET_NODE is answered, with the node its path denotes (see ``ClassicBrowserPath``;
///   `""` and `"/"` are the root, an unrecognised path is an empty list node, a bad id is an
///   empty node of its kind).
/// - Under a source, browsable children are lists and playable-only ones are one-song lists, so
///   no child is hidden and `total` is the core's; under a list every child is a song (a
///   browsable-only one keeps a list path). Pages hold ``Configuration/pageSize`` children from
///   the request's `start`; the root is never paged (it has at most four tabs).
/// - Covers (unless `get_album_art` is false) are fetched once per distinct URI at the profile's
///   size after the core answered; the node waits for them up to ``Configuration/artworkDeadline``
///   and carries at most ``Configuration/maxArtworkBytesPerNode`` of them.
///   Nothing is ever pushed unasked: aasdk's browser handler crashes on unsolicited messages
///   (aap-protocol.md §8 item 8), so a children-changed from the core is not forwarded.
/// - Several requests may be in flight (up to ``Configuration/maxInFlight``) and answers may come
///   in any order; each node is sent once everything it waits for came, or at its deadline.
/// - MEDIA_BROWSE_INPUT: ENTER on a song (or single) path plays that item
///   (`playFromMediaId`, from ``commandSource``) with the source or list node that last showed it
///   as its parent, so the queue is the list on screen; every other cluster action is only logged,
///   because the head unit navigates by asking for nodes itself.
/// - Nothing from the wire throws or traps: a bad body or message is dropped and reported as
///   ``Action/problem(_:)`` (and logged).
public struct ClassicBrowserService: Sendable {
    /// The car's media browser channel (from its discovery response).
    public let channel: UInt8
    public let configuration: Configuration
    /// Who the car is (as the AAP playback status and input services name it).
    public let car: String
    /// Who the session core is told a play command came from: `.aapPlaybackInput(car:)`, the
    /// closest source ``CommandSource`` has for a cluster input on an AAP car.
    public var commandSource: CommandSource { .aapPlaybackInput(car: car) }
    let logger: Logger

    private var nextNumber: UInt64 = 0
    private var requests: [UInt64: ClassicBrowserRequest] = [:]
    private var owners: [Ticket: UInt64] = [:]
    /// The list each song was last shown in, for ENTER.
    private var shownIn = ClassicBrowserParents()

    /// A service for the channel `channel` of the car `car`. It sends nothing until asked.
    public init(channel: UInt8, car: String, configuration: Configuration = Configuration(), logger: Logger = .silent) {
        self.channel = channel
        self.car = car
        // Through the init again: fields set after construction are clamped too (a page size of 0 would divide by zero).
        self.configuration = Configuration(
            car: configuration.car, pageSize: configuration.pageSize, maxInFlight: configuration.maxInFlight,
            artworkDeadline: configuration.artworkDeadline, requestTimeout: configuration.requestTimeout,
            maxArtworkBytesPerNode: configuration.maxArtworkBytesPerNode, maxPathBytes: configuration.maxPathBytes)
        self.logger = logger.labelled("classic-browser").with("channel", "\(channel)")
    }

    /// How many MEDIA_GET_NODE requests are waiting for answers.
    public var inFlightCount: Int { requests.count }

    /// When ``tick(now:)`` must be called next; nil when nothing waits.
    public var nextDeadline: Duration? { requests.values.map(\.deadline).min() }

    // MARK: - Inputs

    /// Takes one message the car sent on the browser channel.
    public mutating func receive(messageId: UInt16, body: some Collection<UInt8>, now: Duration) -> [Action] {
        switch AAP.MediaBrowserMessageId(rawValue: Int32(messageId)) {
        case .getNode:
            do {
                return getNode(try AAP.MediaGetNode(serializedBytes: body), now: now)
            } catch {
                return [problem(.malformedBody(messageId: messageId, error))]
            }
        case .browseInput:
            do {
                return browseInput(try AAP.MediaBrowserInput(serializedBytes: body))
            } catch {
                return [problem(.malformedBody(messageId: messageId, error))]
            }
        default:
            return [problem(.unexpectedMessage(messageId: messageId))]
        }
    }

    /// The browse core's answer to a ``Action/browse(_:parentId:page:pageSize:car:)``.
    public mutating func browseAnswered(_ ticket: Ticket, _ answer: BrowseAnswer, now: Duration) -> [Action] {
        guard case (let number, var request)? = claim(ticket, where: { $0.pageTickets[ticket] }) else { return [] }
        if let index = request.pageTickets.removeValue(forKey: ticket) { request.pages[index] = answer }
        return advance(number, request, now: now)
    }

    /// The browse core's answer to a ``Action/fetchItem(_:itemId:car:)`` (nil: no such item).
    public mutating func itemAnswered(_ ticket: Ticket, _ item: BrowseItem?, now: Duration) -> [Action] {
        guard case (let number, var request)? = claim(ticket, where: { $0.itemTicket == ticket ? ticket : nil }) else { return [] }
        request.itemTicket = nil
        request.item = item
        return advance(number, request, now: now)
    }

    /// The artwork pipeline's answer to a ``Action/fetchArtwork(_:uri:width:height:)``: the
    /// encoded image, or nil when it failed (the node is then sent without that cover).
    public mutating func artworkAnswered(_ ticket: Ticket, _ bytes: [UInt8]?, now: Duration) -> [Action] {
        guard case (let number, var request)? = claim(ticket, where: { $0.artTickets[ticket] }) else { return [] }
        if let uri = request.artTickets.removeValue(forKey: ticket) {
            if let bytes, !bytes.isEmpty {
                request.art[uri] = bytes
            } else {
                logger.debug("cover failed: sent without it", ["path": Self.clipped(request.requestPath), "uri": uri])
            }
        }
        return advance(number, request, now: now)
    }

    /// Sends, with what came, every node whose deadline passed by `now`.
    public mutating func tick(now: Duration) -> [Action] {
        var actions: [Action] = []
        for number in requests.keys.sorted() {
            guard let request = requests[number], request.deadline <= now else { continue }
            switch request.phase {
            case .browsing:
                actions.append(problem(.requestTimedOut(path: Self.clipped(request.requestPath))))
            case .fetchingArtwork:
                logger.notice(
                    "covers late: node sent without them",
                    ["path": Self.clipped(request.requestPath), "missing": "\(request.artTickets.count)"])
            }
            actions += finish(number, request)
        }
        return actions
    }

    // MARK: - Requests

    private mutating func getNode(_ message: AAP.MediaGetNode, now: Duration) -> [Action] {
        let path = message.path
        guard requests.count < configuration.maxInFlight else {
            return [problem(.tooManyRequests(path: Self.clipped(path), limit: configuration.maxInFlight))]
        }
        var actions: [Action] = []
        let target: ClassicBrowserPath?
        let kind: ClassicBrowserPath.Kind
        do {
            let parsed = try ClassicBrowserPath(parsing: path, maxBytes: configuration.maxPathBytes)
            (target, kind) = (parsed, parsed.kind)
        } catch {
            switch error {
            case .unrecognised:
                // An unknown parent is an empty list, never the root (design.md "Browse rules").
                actions.append(problem(.unrecognisedPath(Self.clipped(path)), level: .notice))
                (target, kind) = (nil, .list)
            case .badId(let badKind, _):
                actions.append(problem(.badPath(Self.clipped(path), error)))
                (target, kind) = (nil, badKind)
            }
        }
        // The root has no start; the others ask for `start ..< start + size`, one or two core pages.
        let start = kind == .root ? 0 : max(0, Int(message.start ?? 0))
        let size = configuration.pageSize
        // The answer echoes the path; one past the cap (already refused above) is echoed cut to the
        // cap, so a car's 900 KB path never comes back as a 900 KB answer.
        let echoed = path.utf8.count <= configuration.maxPathBytes ? path : Self.cut(path, maxBytes: configuration.maxPathBytes)
        var request = ClassicBrowserRequest(
            requestPath: echoed, kind: kind, start: start, wantsArt: message.getAlbumArtOrDefault,
            pageSize: size, firstPage: start / size, deadline: now + configuration.requestTimeout)
        let number = take()
        let car = configuration.car
        logger.debug("MEDIA_GET_NODE", ["path": Self.clipped(path), "start": "\(start)", "art": "\(request.wantsArt)"])

        if let target, target.kind != .root {
            let ticket = ticket(for: number)
            request.itemTicket = ticket
            actions.append(.fetchItem(ticket, itemId: target.id, car: car))
        }
        if let target, [.root, .source, .list].contains(target.kind) {
            // The root's children are at most the car's tab cap: one page holds them all.
            let pageSize = target.kind == .root ? max(size, car.tabCap) : size
            for index in 0..<(start % size == 0 ? 1 : 2) {
                let ticket = ticket(for: number)
                request.pageTickets[ticket] = index
                actions.append(.browse(ticket, parentId: target.id, page: request.firstPage + index, pageSize: pageSize, car: car))
            }
        }
        return actions + advance(number, request, now: now)
    }

    private func browseInput(_ message: AAP.MediaBrowserInput) -> [Action] {
        let action = message.input.action
        let target = try? ClassicBrowserPath(parsing: message.path, maxBytes: configuration.maxPathBytes)
        switch (action, target) {
        case (.enter, .song(let id)?), (.enter, .single(let id)?):
            let parentId = shownIn.parent(of: id)
            logger.info("cluster ENTER on a song: play it", ["path": message.path, "parent": parentId ?? "-"])
            return [.command(.playFromMediaId(id, parentId: parentId), commandSource)]
        default:
            logger.debug("cluster input ignored", ["action": "\(action)", "path": Self.clipped(message.path)])
            return []
        }
    }

    // MARK: - Phases

    /// Stores `request` and moves it on when its phase is complete: covers are asked for once the
    /// core answered, and the node is sent once they came.
    private mutating func advance(_ number: UInt64, _ request: ClassicBrowserRequest, now: Duration) -> [Action] {
        var request = request
        guard request.isPhaseComplete else {
            requests[number] = request
            return []
        }
        guard request.phase == .browsing, request.wantsArt else { return finish(number, request) }
        var ignored: [BrowseError] = []
        let uris = ClassicBrowserNodes.artworkURIs(for: request.content(problems: &ignored))
        guard !uris.isEmpty else { return finish(number, request) }
        request.phase = .fetchingArtwork
        request.deadline = now + configuration.artworkDeadline
        let side = max(1, configuration.car.artworkSizePx)
        var actions: [Action] = []
        for uri in uris {
            let ticket = ticket(for: number)
            request.artTickets[ticket] = uri
            actions.append(.fetchArtwork(ticket, uri: uri, width: side, height: side))
        }
        requests[number] = request
        return actions
    }

    /// Builds and sends the node, and forgets the request and its outstanding tickets.
    private mutating func finish(_ number: UInt64, _ request: ClassicBrowserRequest) -> [Action] {
        requests[number] = nil
        for ticket in request.outstandingTickets { owners[ticket] = nil }
        var errors: [BrowseError] = []
        let content = request.content(problems: &errors)
        if content.kind == .source || content.kind == .list,
            let path = try? ClassicBrowserPath(parsing: request.requestPath, maxBytes: configuration.maxPathBytes)
        {
            switch path {
            case .source(let id), .list(let id): shownIn.shown(content.children, in: id)
            case .root, .single, .song: break
            }
        }
        for error in errors {
            logger.notice(
                "the core answered an error screen, which AAP classic cannot draw: empty node",
                ["path": Self.clipped(request.requestPath), "code": error.code.rawValue])
        }
        let (id, body) = ClassicBrowserNodes.message(
            for: content, art: request.wantsArt ? request.art : nil,
            artBudget: configuration.maxArtworkBytesPerNode, logger: logger)
        logger.debug("node sent", ["path": Self.clipped(request.requestPath), "node": "\(id)", "bytes": "\(body.count)"])
        return [.send(OutgoingMessage(channel: channel, messageId: UInt16(truncatingIfNeeded: id.rawValue), body: body))]
    }

    // MARK: - Bookkeeping

    private mutating func take() -> UInt64 {
        defer { nextNumber &+= 1 }
        return nextNumber
    }

    private mutating func ticket(for number: UInt64) -> Ticket {
        let ticket = Ticket(rawValue: take())
        owners[ticket] = number
        return ticket
    }

    /// The request a ticket belongs to, when `slot` finds the ticket among what it waits for (the
    /// ticket is then forgotten); nil for unknown, late or mismatched answers, which are ignored.
    private mutating func claim<Slot>(
        _ ticket: Ticket, where slot: (ClassicBrowserRequest) -> Slot?
    ) -> (UInt64, ClassicBrowserRequest)? {
        guard let number = owners[ticket], let request = requests[number], slot(request) != nil else {
            logger.debug("late, unknown or mismatched answer ignored", ["ticket": "\(ticket)"])
            return nil
        }
        owners[ticket] = nil
        return (number, request)
    }

    private func problem(_ problem: Problem, level: LogLevel = .warning) -> Action {
        logger.log(level, problem.description)
        return .problem(problem)
    }

    /// `path`'s longest prefix of at most `maxBytes` UTF-8 bytes ending on a character boundary.
    static func cut(_ path: String, maxBytes: Int) -> String {
        var kept = 0
        var end = path.startIndex
        for index in path.indices {
            kept += path[index].utf8.count
            guard kept <= maxBytes else { break }
            end = path.index(after: index)
        }
        return String(path[..<end])
    }

    /// A path short enough for a log line or a problem (the first 256 characters).
    static func clipped(_ path: String) -> String {
        path.count <= 256 ? path : String(path.prefix(256)) + "…"
    }
}
