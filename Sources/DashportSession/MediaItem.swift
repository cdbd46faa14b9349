import DashportBrowse

/// What a car shows on its now-playing screen, and one entry of the queue.
///
/// Every field but the id is optional so a handler's media-item broadcast can carry only what it
/// knows better than the queue entry (say, a live stream's current song title): the core merges it
/// over the entry field by field.
public struct MediaItem: Sendable, Hashable, Codable {
    /// The browse-tree id it was played from. Queues may hold the same id more than once.
    public var id: String
    public var title: String?
    public var subtitle: String?
    public var artist: String?
    public var album: String?
    /// Where the cover comes from (registered with the artwork endpoint by the services).
    public var artworkUri: String?
    /// Length of the item; nil for live streams and unknown lengths (never 0 for "unknown").
    public var durationMs: Int64?
    public var mediaType: BrowseItem.MediaType?
    public var explicit: Bool?
    /// The album's artist when it differs from the track's (compilations).
    public var albumArtist: String?
    public var genre: String?
    /// 1-based position on its disc, and the disc's number.
    public var trackNumber: Int?
    public var discNumber: Int?
    /// Release year.
    public var year: Int?
    /// A live stream: cars show no scrubber and no remaining time, even with a duration.
    public var isLive: Bool?
    /// Handler-defined metadata a car may show or ignore (sent sorted by key).
    public var extras: [String: String]?

    public init(
        id: String,
        title: String? = nil,
        subtitle: String? = nil,
        artist: String? = nil,
        album: String? = nil,
        artworkUri: String? = nil,
        durationMs: Int64? = nil,
        mediaType: BrowseItem.MediaType? = nil,
        explicit: Bool? = nil,
        albumArtist: String? = nil,
        genre: String? = nil,
        trackNumber: Int? = nil,
        discNumber: Int? = nil,
        year: Int? = nil,
        isLive: Bool? = nil,
        extras: [String: String]? = nil
    ) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.artist = artist
        self.album = album
        self.artworkUri = artworkUri
        self.durationMs = durationMs
        self.mediaType = mediaType
        self.explicit = explicit
        self.albumArtist = albumArtist
        self.genre = genre
        self.trackNumber = trackNumber
        self.discNumber = discNumber
        self.year = year
        self.isLive = isLive
        self.extras = extras
    }

    /// Whether cars should show a scrubber: a known duration and not live.
    public var hasScrubber: Bool { isLive != true && durationMs != nil }

    /// The playback metadata of a browse item. A radio item is live unless it says otherwise.
    public init(_ item: BrowseItem) {
        let metadata = item.metadata
        self.init(
            id: item.id, title: item.title, subtitle: item.subtitle, artist: item.artist, album: item.album,
            artworkUri: item.artworkUri, durationMs: item.durationMs, mediaType: item.mediaType,
            explicit: item.explicit, albumArtist: metadata?.albumArtist, genre: metadata?.genre,
            trackNumber: metadata?.trackNumber, discNumber: metadata?.discNumber, year: metadata?.year,
            isLive: metadata?.isLive ?? (item.mediaType == .radio ? true : nil), extras: metadata?.extras)
    }

    /// `self`'s fields where set, `entry`'s elsewhere (the id stays `entry`'s).
    public func merged(over entry: MediaItem) -> MediaItem {
        MediaItem(
            id: entry.id,
            title: title ?? entry.title,
            subtitle: subtitle ?? entry.subtitle,
            artist: artist ?? entry.artist,
            album: album ?? entry.album,
            artworkUri: artworkUri ?? entry.artworkUri,
            durationMs: durationMs ?? entry.durationMs,
            mediaType: mediaType ?? entry.mediaType,
            explicit: explicit ?? entry.explicit,
            albumArtist: albumArtist ?? entry.albumArtist,
            genre: genre ?? entry.genre,
            trackNumber: trackNumber ?? entry.trackNumber,
            discNumber: discNumber ?? entry.discNumber,
            year: year ?? entry.year,
            isLive: isLive ?? entry.isLive,
            extras: extras ?? entry.extras)
    }
}

/// The media-item channel: what is playing now, or nil when nothing is.
public struct MediaItemState: Sendable, Hashable, Codable {
    public var item: MediaItem?

    public init(item: MediaItem? = nil) {
        self.item = item
    }

    public static let none = MediaItemState()
}

/// The queue channel: what plays next. The same id may appear more than once.
public struct QueueState: Sendable, Hashable, Codable {
    public var items: [MediaItem]
    /// What the queue is (an album's or playlist's name), for the car's queue view.
    public var title: String?

    public init(items: [MediaItem] = [], title: String? = nil) {
        self.items = items
        self.title = title
    }

    public static let empty = QueueState()
}

/// All three channels at one moment.
public struct SessionSnapshot: Sendable, Hashable, Codable {
    public var playbackState: PlaybackState
    public var mediaItem: MediaItemState
    public var queue: QueueState

    public init(playbackState: PlaybackState, mediaItem: MediaItemState, queue: QueueState) {
        self.playbackState = playbackState
        self.mediaItem = mediaItem
        self.queue = queue
    }

    /// The length of the current item, if known.
    public var durationMs: Int64? { mediaItem.item?.durationMs }

    /// The current queue entry, if the queue index points at one.
    public var currentEntry: MediaItem? {
        guard let index = playbackState.queueIndex, queue.items.indices.contains(index) else { return nil }
        return queue.items[index]
    }

    /// Neither a queue nor an item: a play button has nothing to resume.
    public var isIdle: Bool { queue.items.isEmpty && mediaItem.item == nil }
}
