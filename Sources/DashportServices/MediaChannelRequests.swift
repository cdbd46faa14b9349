// Sources/DashportServices/MediaChannelRequests.swift - checking car requests and handing them to the
// driver: the in-flight cap, size caps, rejections and malformed bodies.

import DashportBrowse
import DashportMessages
import DashportSession
import DashportLog

/// A request handed to the driver: the car's id to echo and how to shape the answer.
struct PendingRequest: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case children(page: Int, pageSize: Int)
        case search(page: Int, pageSize: Int)
        case item
        case command
        case artwork
    }

    var requestId: UInt32
    var kind: Kind
}

/// Which answer message a request gets, so a rejection can be shaped before any work.
enum RequestFamily: Sendable {
    /// Answered by BROWSE_RESULT.
    case browse
    /// Answered by COMMAND_RESULT.
    case command
    /// Answered by ARTWORK_RESULT.
    case artwork
}

/// Why a request is answered at once without work.
enum Refusal: Sendable, Hashable {
    case busy
    case invalid(String)
    case notSupported(String)
    case notFound(String)
}

/// The outcome of checking a request: work for the driver, or an answer now.
enum Intake: Sendable {
    case perform(PendingRequest.Kind, Work)
    case refuse(Refusal)

    enum Work: Sendable {
        case browse(MediaChannelBrowseRequest)
        case command(SessionCommand)
        case artwork(key: String, width: Int, height: Int)
    }
}

extension MediaChannelService {
    /// Applies the in-flight cap, then hands the work to the driver under a new ticket or answers
    /// the refusal at once.
    mutating func admit(_ requestId: UInt32, _ family: RequestFamily, _ intake: Intake) -> [MediaChannelAction] {
        guard pending.count < configuration.maxInFlightRequests else {
            logger.debug("request over the in-flight cap: busy", ["request": String(requestId)])
            return [reject(requestId, family, .busy)]
        }
        switch intake {
        case .refuse(let refusal):
            logger.notice("request refused: \(refusal)", ["request": String(requestId)])
            return [reject(requestId, family, refusal)]
        case .perform(let kind, let work):
            let ticket = MediaChannelTicket(rawValue: nextTicket)
            nextTicket += 1
            pending[ticket] = PendingRequest(requestId: requestId, kind: kind)
            switch work {
            case .browse(let request): return [.browse(ticket, request)]
            case .command(let command): return [.command(ticket, command, .dashportCar(id: carId))]
            case .artwork(let key, let width, let height): return [.artwork(ticket, key: key, width: width, height: height)]
            }
        }
    }

    /// The answer message that refuses a request of `family`.
    func reject(_ requestId: UInt32, _ family: RequestFamily, _ refusal: Refusal) -> MediaChannelAction {
        switch family {
        case .browse:
            let (reason, message): (DashportMedia.RequestRejected.Reason, String) =
                switch refusal {
                case .busy: (.busy, "too many requests in flight")
                case .invalid(let why): (.invalidRequest, why)
                case .notSupported(let why): (.notSupported, why)
                case .notFound(let why): (.invalidRequest, why)
                }
            let rejected = DashportMedia.RequestRejected(reason: reason, message: message)
            return send(.browseResult, DashportMedia.BrowseResult(requestId: requestId, outcome: .rejected(rejected)))
        case .command:
            let (reason, message): (DashportMedia.CommandResult.Reason, String) =
                switch refusal {
                case .busy: (.busy, "too many requests in flight")
                case .invalid(let why): (.invalidArgument, why)
                case .notSupported(let why): (.notSupported, why)
                case .notFound(let why): (.notFound, why)
                }
            let result = DashportMedia.CommandResult(requestId: requestId, accepted: false, reason: reason, message: message)
            return send(.commandResult, result)
        case .artwork:
            let (code, message): (DashportMedia.ArtworkError.Code, String) =
                switch refusal {
                case .busy: (.busy, "too many requests in flight")
                case .invalid(let why), .notSupported(let why): (.unknown, why)
                case .notFound(let why): (.notFound, why)
                }
            let error = DashportMedia.ArtworkError(code: code, message: message)
            return send(.artworkResult, DashportMedia.ArtworkResult(requestId: requestId, outcome: .error(error)))
        }
    }

    /// A body that does not decode: rejected when its request id can be read, else only logged.
    func malformed(_ body: [UInt8], messageId: DashportMedia.MessageId, error: WireDecodingError) -> [MediaChannelAction] {
        let family: RequestFamily? =
            switch messageId {
            case .getChildren, .getItem, .search: .browse
            case .playFromMediaId, .playFromSearch, .playbackCommand: .command
            case .getArtwork: .artwork
            default: nil
            }
        guard let family, let requestId = MediaChannelWireScan.requestId(in: body) else {
            logger.error("malformed message without a readable request id: \(error)", ["message": messageId.description])
            return []
        }
        logger.warning("malformed request: \(error)", ["message": messageId.description, "request": String(requestId)])
        return [reject(requestId, family, .invalid("malformed \(messageId.description) body"))]
    }

    // MARK: - Browse requests

    func examine(_ request: DashportMedia.GetChildren) -> Intake {
        if let refusal = checkId(request.parentId, "parent id") { return .refuse(refusal) }
        let page = Int(request.page ?? 0)
        let size = pageSize(request.pageSize)
        let browse = MediaChannelBrowseRequest.children(
            parentId: request.parentId, page: page, pageSize: size, car: profile.browse)
        return .perform(.children(page: page, pageSize: size), .browse(browse))
    }

    func examine(_ request: DashportMedia.GetItem) -> Intake {
        if let refusal = checkId(request.id, "item id") { return .refuse(refusal) }
        return .perform(.item, .browse(.item(id: request.id, car: profile.browse)))
    }

    func examine(_ request: DashportMedia.Search) -> Intake {
        guard server.supportsSearch else { return .refuse(.notSupported("this server cannot search")) }
        if let refusal = checkQuery(request.query) { return .refuse(refusal) }
        let page = Int(request.page ?? 0)
        let size = pageSize(request.pageSize)
        let browse = MediaChannelBrowseRequest.search(query: request.query, page: page, pageSize: size, car: profile.browse)
        return .perform(.search(page: page, pageSize: size), .browse(browse))
    }

    // MARK: - Play requests

    /// The parent the car played the item from travels with it (an empty one is absent), so the
    /// queue is that list's tracks.
    func examine(_ request: DashportMedia.PlayFromMediaId) -> Intake {
        if let refusal = checkId(request.mediaId, "media id") { return .refuse(refusal) }
        let parentId = request.parentId.flatMap { $0.isEmpty ? nil : $0 }
        if let parentId, let refusal = checkId(parentId, "parent id") { return .refuse(refusal) }
        return .perform(.command, .command(.playFromMediaId(request.mediaId, parentId: parentId)))
    }

    func examine(_ request: DashportMedia.PlayFromSearch) -> Intake {
        guard server.supportsSearch else { return .refuse(.notSupported("this server cannot search")) }
        if let refusal = checkQuery(request.query) { return .refuse(refusal) }
        let focus = request.focus.flatMap(SearchFocus.init(wire:))
        return .perform(.command, .command(.playFromSearch(query: request.query, focus: focus)))
    }

    // MARK: - Artwork

    /// The box is the request's, or the profile's first artwork size; a missing side copies the
    /// other; each side is capped at ``MediaChannelConfiguration/maxArtworkSizePx``.
    func examine(_ request: DashportMedia.GetArtwork) -> Intake {
        guard !request.key.isEmpty, request.key.utf8.count <= configuration.maxIdBytes else {
            return .refuse(.notFound("no artwork was handed out under that key"))
        }
        let asked = (Int(request.width ?? 0), Int(request.height ?? 0))
        let (width, height): (Int, Int) =
            switch asked {
            case (0, 0): (profile.artworkWidth, profile.artworkHeight)
            case (0, let side), (let side, 0): (side, side)
            default: asked
            }
        let cap = configuration.maxArtworkSizePx
        return .perform(.artwork, .artwork(key: request.key, width: min(width, cap), height: min(height, cap)))
    }

    // MARK: - Checks

    /// A refusal for an empty id or one longer than ``MediaChannelConfiguration/maxIdBytes``.
    func checkId(_ id: String, _ what: String) -> Refusal? {
        if id.isEmpty { return .invalid("the \(what) is missing") }
        if id.utf8.count > configuration.maxIdBytes {
            return .invalid("the \(what) is longer than \(configuration.maxIdBytes) bytes")
        }
        return nil
    }

    /// A refusal for a query longer than ``MediaChannelConfiguration/maxQueryBytes``.
    func checkQuery(_ query: String) -> Refusal? {
        guard query.utf8.count <= configuration.maxQueryBytes else {
            return .invalid("the query is longer than \(configuration.maxQueryBytes) bytes")
        }
        return nil
    }

    /// The page size answered: the request's (absent or 0: the default), capped by the maximum
    /// page size and the car's own list limit.
    func pageSize(_ requested: UInt32?) -> Int {
        let asked = Int(requested ?? 0)
        var size = asked == 0 ? configuration.defaultPageSize : min(asked, configuration.maxPageSize)
        if let carLimit = profile.browse.maxItemsPerList, carLimit > 0 { size = min(size, carLimit) }
        return size
    }
}

extension SearchFocus {
    /// The session's focus for a wire focus; nil for `unspecified` and kinds the session has none
    /// for (radio, podcast, audiobook), which then search without a focus.
    init?(wire: DashportMedia.SearchFocus) {
        switch wire {
        case .artist: self = .artist
        case .album: self = .album
        case .track: self = .song
        case .playlist: self = .playlist
        case .genre: self = .genre
        default: return nil
        }
    }
}
