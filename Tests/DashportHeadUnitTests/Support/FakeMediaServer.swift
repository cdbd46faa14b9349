import DashportMessages

/// The server side of the Dashport media channel, faked with a fixed little catalog, for the
/// emulator's end-to-end tests: root → Albums (grid, two groups), Locked (an error screen),
/// Podcasts (empty); "t1" plays; seeking is not declared; "cover-1" is a tiny PNG; the children
/// of "silent" are never answered.
struct FakeMediaServer: Sendable {
    static let rootId = "root"
    /// How long after the channel opens the hello goes out (zero: at once, as the server does).
    var helloDelay: Duration = .zero
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static let tabs: [DashportMedia.BrowseItem] = [
        DashportMedia.BrowseItem(id: "albums", title: "Albums", browsable: true, playable: false, childStyle: .grid),
        DashportMedia.BrowseItem(id: "locked", title: "Locked", browsable: true, playable: false),
        DashportMedia.BrowseItem(id: "podcasts", title: "Podcasts", browsable: true, playable: false),
    ]

    static let albums: [DashportMedia.BrowseItem] = [
        DashportMedia.BrowseItem(
            id: "t1", title: "So What", subtitle: "Miles Davis", artworkKey: "cover-1", browsable: false, playable: true,
            group: "Jazz", artist: "Miles Davis", album: "Kind of Blue", durationMs: 545_000),
        DashportMedia.BrowseItem(
            id: "t2", title: "Blue in Green", browsable: false, playable: true, group: "Jazz", explicit: true, completion: 0.5),
        DashportMedia.BrowseItem(id: "a2", title: "More", browsable: true, playable: true, group: "Rock"),
    ]

    static let t1 = DashportMedia.MediaItem(id: "t1", title: "So What", artist: "Miles Davis", album: "Kind of Blue", durationMs: 545_000)
    static let t2 = DashportMedia.MediaItem(id: "t2", title: "Blue in Green", artist: "Miles Davis")

    /// SERVER_HELLO, as the server sends it right after the channel opens.
    func greeting() -> [(UInt16, [UInt8])] {
        let hello = DashportMedia.ServerHello(
            protocolVersion: 1, serverName: "Fake", serverVersion: "0.1", supportsSearch: true, rootId: Self.rootId,
            maxInFlightRequests: 8, maxPageSize: 50)
        return [Self.message(.serverHello, hello)]
    }

    func answer(messageId: UInt16, body: [UInt8]) -> [(UInt16, [UInt8])] {
        switch Int32(messageId) {
        case DashportMedia.MessageId.getChildren.rawValue:
            guard let request = try? DashportMedia.GetChildren(serializedBytes: body), request.parentId != "silent" else { return [] }
            return [
                Self.message(.browseResult, DashportMedia.BrowseResult(requestId: request.requestId, outcome: children(request.parentId)))
            ]
        case DashportMedia.MessageId.getItem.rawValue:
            guard let request = try? DashportMedia.GetItem(serializedBytes: body) else { return [] }
            let found = (Self.tabs + Self.albums).filter { $0.id == request.id }
            return [Self.found(found, for: request.requestId)]
        case DashportMedia.MessageId.search.rawValue:
            guard let request = try? DashportMedia.Search(serializedBytes: body) else { return [] }
            let found = Self.albums.filter { ($0.subtitle ?? "").lowercased().contains(request.query.lowercased()) }
            return [Self.found(found, for: request.requestId)]
        case DashportMedia.MessageId.playFromMediaId.rawValue:
            guard let request = try? DashportMedia.PlayFromMediaId(serializedBytes: body) else { return [] }
            guard request.mediaId == "t1" else {
                return [Self.result(request.requestId, accepted: false, .notFound, "no playable item \(request.mediaId)")]
            }
            return [
                Self.result(request.requestId, accepted: true),
                Self.message(.queueState, DashportMedia.QueueState(items: [Self.t1, Self.t2])),
                Self.message(.mediaItemState, DashportMedia.MediaItemState(item: Self.t1)),
                Self.message(.playbackState, Self.state(.playing, at: 30_000, rate: 1)),
            ]
        case DashportMedia.MessageId.playbackCommand.rawValue:
            guard let request = try? DashportMedia.PlaybackCommand(serializedBytes: body) else { return [] }
            switch request.command {
            case .seekToMs:
                return [Self.result(request.requestId, accepted: false, .notInCapabilities, "seeking is not declared")]
            case .pause:
                return [
                    Self.result(request.requestId, accepted: true), Self.message(.playbackState, Self.state(.paused, at: 42_000, rate: 0)),
                ]
            default:
                return [Self.result(request.requestId, accepted: true)]
            }
        case DashportMedia.MessageId.getArtwork.rawValue:
            guard let request = try? DashportMedia.GetArtwork(serializedBytes: body) else { return [] }
            let outcome: DashportMedia.ArtworkResult.Outcome =
                request.key == "cover-1"
                ? .image(DashportMedia.ArtworkImage(data: Self.png, mimeType: "image/png", width: 64, height: 64))
                : .error(DashportMedia.ArtworkError(code: .notFound, message: "never handed out"))
            return [Self.message(.artworkResult, DashportMedia.ArtworkResult(requestId: request.requestId, outcome: outcome))]
        default:
            return []
        }
    }

    private func children(_ parentId: String) -> DashportMedia.BrowseResult.Outcome {
        switch parentId {
        case Self.rootId: .items(DashportMedia.ItemPage(items: Self.tabs, page: 0, total: 3, hasMore: false))
        case "albums": .items(DashportMedia.ItemPage(items: Self.albums, page: 0, total: 3, hasMore: false))
        case "locked":
            .errorScreen(
                DashportMedia.BrowseErrorScreen(
                    code: .authenticationExpired, message: "Sign in to see this",
                    resolution: DashportMedia.BrowseErrorScreen.Resolution(label: "Sign in", url: "https://example.com/login")))
        default: .items(DashportMedia.ItemPage(items: [], page: 0, total: 0))
        }
    }

    static func state(_ status: DashportMedia.PlaybackStatus, at valueMs: Int64, rate: Double) -> DashportMedia.PlaybackState {
        DashportMedia.PlaybackState(
            status: status, position: DashportMedia.PositionAnchor(valueMs: valueMs, atMs: 1000, rate: rate), sentAtMs: 1000,
            capabilities: [.play, .pause, .skipToNext], queueIndex: 0, repeatMode: .off, shuffle: false)
    }

    static func result(_ requestId: UInt32, accepted: Bool, _ reason: DashportMedia.CommandResult.Reason? = nil, _ text: String? = nil) -> (
        UInt16, [UInt8]
    ) {
        message(.commandResult, DashportMedia.CommandResult(requestId: requestId, accepted: accepted, reason: reason, message: text))
    }

    static func message(_ id: DashportMedia.MessageId, _ body: some WireMessage) -> (UInt16, [UInt8]) {
        (UInt16(id.rawValue), body.serializedBytes())
    }

    /// A BROWSE_RESULT listing `items` (GET_ITEM and SEARCH answer alike: one page of all found).
    static func found(_ items: [DashportMedia.BrowseItem], for requestId: UInt32) -> (UInt16, [UInt8]) {
        message(
            .browseResult,
            DashportMedia.BrowseResult(
                requestId: requestId, outcome: .items(DashportMedia.ItemPage(items: items, page: 0, total: UInt32(items.count)))))
    }
}
