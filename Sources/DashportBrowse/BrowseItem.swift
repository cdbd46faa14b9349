/// One entry of the browse tree, as a car renders it: a row, a tile or a tab.
///
/// Ids are stable per source (never a position or a counter): a car may cache them and come back
/// with them after a reconnect.
public struct BrowseItem: Sendable, Hashable, Codable {
    /// How a browsable item's children are laid out.
    public enum ChildStyle: String, Sendable, Hashable, Codable, CaseIterable {
        case list, grid, categoryList, categoryGrid
    }

    /// What kind of media an item is (for icons and the car's now-playing view).
    public enum MediaType: String, Sendable, Hashable, Codable, CaseIterable {
        case folder, music, album, artist, playlist, podcast, podcastEpisode, audiobook, radio, genre, other
    }

    public var id: String
    public var title: String
    public var subtitle: String?
    /// Where the cover comes from (`https://…` or `file://…`). The artwork endpoint registers it
    /// and the car only ever sees an opaque key for it.
    public var artworkUri: String?
    /// Has children the car can open. May be true together with ``playable`` ("play all" + open).
    public var browsable: Bool
    /// Starts playback when the car asks to play it by id.
    public var playable: Bool
    public var childStyle: ChildStyle?
    /// Section header; items of one group are contiguous.
    public var group: String?
    public var explicit: Bool?
    /// How much of it was played, 0…1.
    public var completion: Double?
    public var mediaType: MediaType?

    // Playback metadata of playable items (the session core's media item is built from these).
    public var artist: String?
    public var album: String?
    public var durationMs: Int64?
    /// The rest of a playable item's metadata (album artist, genre, numbers, year, live, extras).
    public var metadata: Metadata?

    /// Playback metadata beyond title, artist, album and duration; cars see it in the media item
    /// of the session, not in browse rows.
    public struct Metadata: Sendable, Hashable, Codable {
        public var albumArtist: String?
        public var genre: String?
        public var trackNumber: Int?
        public var discNumber: Int?
        public var year: Int?
        /// A live stream (no scrubber even with a duration).
        public var isLive: Bool?
        public var extras: [String: String]?

        public init(
            albumArtist: String? = nil, genre: String? = nil, trackNumber: Int? = nil, discNumber: Int? = nil,
            year: Int? = nil, isLive: Bool? = nil, extras: [String: String]? = nil
        ) {
            self.albumArtist = albumArtist
            self.genre = genre
            self.trackNumber = trackNumber
            self.discNumber = discNumber
            self.year = year
            self.isLive = isLive
            self.extras = extras
        }
    }

    public init(
        id: String,
        title: String,
        subtitle: String? = nil,
        artworkUri: String? = nil,
        browsable: Bool = false,
        playable: Bool = false,
        childStyle: ChildStyle? = nil,
        group: String? = nil,
        explicit: Bool? = nil,
        completion: Double? = nil,
        mediaType: MediaType? = nil,
        artist: String? = nil,
        album: String? = nil,
        durationMs: Int64? = nil,
        metadata: Metadata? = nil
    ) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.artworkUri = artworkUri
        self.browsable = browsable
        self.playable = playable
        self.childStyle = childStyle
        self.group = group
        self.explicit = explicit
        self.completion = completion
        self.mediaType = mediaType
        self.artist = artist
        self.album = album
        self.durationMs = durationMs
        self.metadata = metadata
    }

    /// The id of the tree's root. Its children are the car's tabs.
    public static let rootId = "__root__"
}

/// A screen the car shows instead of a list when a provider cannot answer a browse.
public struct BrowseError: Error, Sendable, Hashable, Codable {
    public enum Code: String, Sendable, Hashable, Codable, CaseIterable {
        case authenticationExpired, premiumAccountRequired, notAvailableInRegion, parentalControlRestricted, notSupported
    }

    /// A button on the error screen: what it says and where it leads (opened on the phone).
    public struct Resolution: Sendable, Hashable, Codable {
        public var label: String
        public var url: String?
        public init(label: String, url: String? = nil) {
            self.label = label
            self.url = url
        }
    }

    public var code: Code
    public var message: String
    public var resolution: Resolution?

    public init(code: Code, message: String, resolution: Resolution? = nil) {
        self.code = code
        self.message = message
        self.resolution = resolution
    }
}

/// Where the browse tree comes from: the embedded catalog, a music folder, a remote server.
///
/// A provider answers with its own items; the browse core applies the car's rules (tab cap,
/// browsable-only root, depth, item validation), caches, pages and reports. Throw a ``BrowseError``
/// to show an error screen; any other error means the provider is not able to answer right now
/// (the core then answers from its disk cache).
public protocol BrowseProvider: Sendable {
    /// The children of `parentId`, page `page` (0-based) of `pageSize` items. An unknown parent
    /// is an empty list.
    func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem]
    /// One item by id, or nil when there is none.
    func item(id: String) async throws -> BrowseItem?
    /// Whether ``search(query:page:pageSize:)`` is implemented. Without it the car gets no search
    /// tab and a voice "play X" is answered `notSupported`.
    var supportsSearch: Bool { get }
    func search(query: String, page: Int, pageSize: Int) async throws -> [BrowseItem]
    /// The results of ``search(query:page:pageSize:)`` at `range` of the whole list (fewer past its
    /// end), and how long the list is, counted up to `limit`: one page of a search without making
    /// every result. Only for a provider whose results are all valid items with distinct ids (the
    /// catalog checks them at load): the core checks the page, not the rest. Nil (the default)
    /// makes the core ask ``search(query:page:pageSize:)`` for the whole list.
    func searchPage(query: String, range: Range<Int>, limit: Int) async throws -> SearchPage?
    /// Covers for the rows of one page a car is about to be shown that came without one: the
    /// artwork URI of each row (by id) a cover was found for. The core asks for a whole list at
    /// once, so a provider that looks covers up row by row (MPD: a query per album) can leave them
    /// out of a long list's ``children(of:page:pageSize:)`` and give them here, for the rows shown
    /// only. Called for fresh answers only, within the provider timeout. Default: none.
    func artwork(for rows: [BrowseItem], in parentId: String) async -> [String: String]
}

/// One page of search results and the length of the whole list (counted up to a limit), from
/// ``BrowseProvider/searchPage(query:range:limit:)``.
public struct SearchPage: Sendable, Hashable {
    /// The results at the positions asked for.
    public var items: [BrowseItem]
    /// How many results there are, or the limit when there are more.
    public var total: Int

    public init(items: [BrowseItem], total: Int) {
        self.items = items
        self.total = total
    }
}

extension BrowseProvider {
    public var supportsSearch: Bool { false }
    public func search(query: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        throw BrowseError(code: .notSupported, message: "This library cannot be searched.")
    }
    public func searchPage(query: String, range: Range<Int>, limit: Int) async throws -> SearchPage? { nil }
    public func artwork(for rows: [BrowseItem], in parentId: String) async -> [String: String] { [:] }
}
