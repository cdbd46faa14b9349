// Sources/DashportBrowse/CatalogStore.swift - a validated catalog's items, stored compactly.

/// A catalog's items as a few flat arrays instead of a ``BrowseItem`` per item (issue 22, item 4;
/// the layout is in the DocC article "How a catalog is held in memory"). Item `i` (file order) is
/// `ids[i]`, `titles[i]` and `records[i]`; every other string (subtitle, artwork, group, artist,
/// album, album artist, genre) is a number into `strings`, where each distinct one is held once;
/// what few items have (track numbers, years, extras, completion) is in `details`, named by the
/// items that have any. Every parent's children are one range of `childItems`. A browse answer
/// is made from these (``item(at:group:)``) for the page asked, never stored as items. Only
/// ``Builder`` writes the arrays (they are not private because it is in a file of its own).
struct CatalogStore: Sendable {
    var ids: [String] = []
    var titles: [String] = []
    var records: [Record] = []
    /// Distinct strings; 0 is none (`nil`).
    var strings: [String] = [""]
    /// 0 is none; an item's `details` is its index here.
    var details: [Details] = [Details()]
    var extras: [[String: String]] = []
    /// Item → the error opening it throws (the items that carry an `error`).
    var errors: [UInt32: BrowseError] = [:]
    var index: [String: UInt32] = [:]
    /// Every parent's children end to end: the item, and the group its reference gives it (0: its own).
    var childItems: [UInt32] = []
    var childGroups: [UInt32] = []
    var rootChildren: Range<Int> = 0..<0

    struct Record {
        var subtitle: UInt32 = 0
        var artwork: UInt32 = 0
        var group: UInt32 = 0
        var artist: UInt32 = 0
        var album: UInt32 = 0
        var details: UInt32 = 0
        var childStart: UInt32 = 0
        var childCount: UInt32 = 0
        var durationMs: Int64 = 0
        /// Flags (``Flag``), and the child style and media type (0: none, else the case's index + 1).
        var flags: UInt32 = 0
    }

    enum Flag {
        static let browsable: UInt32 = 1 << 0
        static let playable: UInt32 = 1 << 1
        static let hasExplicit: UInt32 = 1 << 2
        static let explicit: UInt32 = 1 << 3
        static let hasDuration: UInt32 = 1 << 4
        static let childStyleShift: UInt32 = 8
        static let mediaTypeShift: UInt32 = 12
    }

    /// What few items have: an item's ``BrowseItem/Metadata`` and its completion.
    struct Details {
        var albumArtist: UInt32 = 0
        var genre: UInt32 = 0
        /// 0: none, else the index in `extras` + 1.
        var extras: UInt32 = 0
        var flags: UInt8 = 0
        var trackNumber = 0
        var discNumber = 0
        var year = 0
        var completion = 0.0

        static let hasMetadata: UInt8 = 1 << 0
        static let hasTrack: UInt8 = 1 << 1
        static let hasDisc: UInt8 = 1 << 2
        static let hasYear: UInt8 = 1 << 3
        static let hasLive: UInt8 = 1 << 4
        static let live: UInt8 = 1 << 5
        static let hasCompletion: UInt8 = 1 << 6
    }

    var count: Int { ids.count }

    /// The position of the item with id `id`.
    func position(of id: String) -> Int? { index[id].map(Int.init) }

    /// Item `position` as a car gets it, with the group a parent's reference gives it (0: its own).
    func item(at position: Int, group: UInt32 = 0) -> BrowseItem {
        let record = records[position]
        func text(_ ref: UInt32) -> String? { ref == 0 ? nil : strings[Int(ref)] }
        func choice<Choice: CaseIterable>(_ shift: UInt32, _: Choice.Type) -> Choice? where Choice.AllCases == [Choice] {
            let code = Int(record.flags >> shift & 0xF)
            return code == 0 ? nil : Choice.allCases[code - 1]
        }
        var item = BrowseItem(
            id: ids[position], title: titles[position], subtitle: text(record.subtitle), artworkUri: text(record.artwork),
            browsable: record.flags & Flag.browsable != 0, playable: record.flags & Flag.playable != 0,
            childStyle: choice(Flag.childStyleShift, BrowseItem.ChildStyle.self), group: text(group == 0 ? record.group : group),
            explicit: record.flags & Flag.hasExplicit == 0 ? nil : record.flags & Flag.explicit != 0,
            mediaType: choice(Flag.mediaTypeShift, BrowseItem.MediaType.self), artist: text(record.artist),
            album: text(record.album), durationMs: record.flags & Flag.hasDuration == 0 ? nil : record.durationMs)
        guard record.details != 0 else { return item }
        let more = details[Int(record.details)]
        func has(_ flag: UInt8) -> Bool { more.flags & flag != 0 }
        if has(Details.hasCompletion) { item.completion = more.completion }
        if has(Details.hasMetadata) {
            item.metadata = BrowseItem.Metadata(
                albumArtist: text(more.albumArtist), genre: text(more.genre),
                trackNumber: has(Details.hasTrack) ? more.trackNumber : nil, discNumber: has(Details.hasDisc) ? more.discNumber : nil,
                year: has(Details.hasYear) ? more.year : nil, isLive: has(Details.hasLive) ? has(Details.live) : nil,
                extras: more.extras == 0 ? nil : extras[Int(more.extras) - 1])
        }
        return item
    }

    /// The children `parentId` lists (the root's included, as ``BrowseItem/rootId``), as positions
    /// in the list of every parent's children: empty for an unknown parent or one without a list.
    func children(of parentId: String) -> Range<Int> {
        if parentId == BrowseItem.rootId { return rootChildren }
        guard let position = index[parentId] else { return 0..<0 }
        let record = records[Int(position)]
        return Int(record.childStart)..<Int(record.childStart + record.childCount)
    }

    /// The store position of child `k` of the list of every parent's children.
    func childPosition(_ k: Int) -> Int { Int(childItems[k]) }

    /// Child `k` of the list of every parent's children, as its parent lists it.
    func child(_ k: Int) -> BrowseItem { item(at: Int(childItems[k]), group: childGroups[k]) }

    /// The error opening `parentId` shows, if it carries one.
    func error(of parentId: String) -> BrowseError? {
        guard !errors.isEmpty, let position = index[parentId] else { return nil }
        return errors[position]
    }

    /// The parents with children or an error screen: the root and items, by id.
    var parents: [String] {
        [BrowseItem.rootId]
            + records.indices.filter { records[$0].childCount > 0 || errors[UInt32($0)] != nil }.map { ids[$0] }
    }

    /// The title, artist and album of item `position` (for search).
    func searchedFields(of position: Int) -> (title: String, artist: UInt32, album: UInt32) {
        (titles[position], records[position].artist, records[position].album)
    }

    func string(_ ref: UInt32) -> String { strings[Int(ref)] }
    var stringCount: Int { strings.count }
}
