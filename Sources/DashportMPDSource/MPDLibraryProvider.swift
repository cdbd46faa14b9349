// Sources/DashportMPDSource/MPDLibraryProvider.swift - MPD's database as Dashport's browse tree.

public import DashportBrowse
public import DashportLog
public import DashportMPD
import Synchronization

/// The browse tree of an MPD library: four tabs (Albums, Artists, Playlists, Folders, within any
/// car's tab cap), albums with their songs in disc/track order, album artists with their albums,
/// stored playlists, the folder tree; search through MPD's `search any`. Ids come from tags and
/// paths (``MPDLibraryId``). Covers come from MPD (``MPDCoverStore``) for the first ``coverRows``
/// rows of a list and then for the rows of each page a car asks for (``artwork(for:in:)``), so a
/// big library costs MPD a look-up per album shown, not per album.
///
/// Every whole list served is remembered (without covers, at most ``memoCapacity``). When MPD says
/// its database or stored playlists changed, ``refresh(_:)`` asks MPD for each remembered list
/// again and returns exactly the ids whose list now differs, for the server to push as
/// children-changed. While MPD is down a browse throws ``MPDError`` (the browse core then answers
/// from its disk cache and reports the library as not answering); a refused password is a
/// ``BrowseError`` screen saying what to fix. Nothing else is ever served instead of the library.
public final class MPDLibraryProvider: BrowseProvider {
    public let client: MPDClient
    let covers: MPDCoverStore
    let logger: Logger
    public static let memoCapacity = 512
    /// The most songs a search returns (MPD's `window`).
    public static let searchLimit = 200
    private let memo = Mutex<[String: [BrowseItem]]>([:])
    /// Each album's cover (or none) as found, by album id (at most `MPDCoverStore.capacity`),
    /// so a page shown again costs MPD nothing.
    let albumCovers = Mutex<[String: String?]>([:])

    /// - Parameter coverDirectory: where covers read from MPD are written (an artwork root).
    public init(client: MPDClient, coverDirectory: String, logger: Logger) {
        self.client = client
        self.logger = logger.labelled("mpd-library")
        self.covers = MPDCoverStore(directory: coverDirectory, client: client, logger: self.logger)
    }

    public var coverDirectory: String { covers.directory }

    public func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        guard let parent = MPDLibraryId(parentId), parent.isList else { return [] }
        let list = try await whole(parent)
        guard page >= 0, pageSize > 0 else { return [] }
        let (start, overflow) = page.multipliedReportingOverflow(by: pageSize)
        guard !overflow, start < list.count else { return [] }
        let rows = Array(list[start..<min(list.count, start + pageSize)])
        // The browse core asks for a whole list at once (page 0, its per-node cap): covers, a
        // `find` and an `albumart` per album, only for the rows a car's first page shows; the
        // rows of later pages get theirs when a car asks for that page (`artwork(for:in:)`).
        let covered = min(rows.count, Self.coverRows)
        return await withCovers(Array(rows.prefix(covered)), in: parent) + rows.dropFirst(covered)
    }

    /// The most rows of one answer given covers (a car's default page); the rest are served
    /// without, so a list's cost to MPD does not grow with the library, and are given their covers
    /// page by page as cars ask (``artwork(for:in:)``).
    public static let coverRows = 100

    /// The covers of the rows of a page a car asks for past the first ``coverRows`` (or that
    /// have none): looked up as for the first rows, remembered per album and per folder.
    public func artwork(for rows: [BrowseItem], in parentId: String) async -> [String: String] {
        guard let parent = MPDLibraryId(parentId), parent.isList else { return [:] }
        var found: [String: String] = [:]
        for row in await withCovers(rows, in: parent) {
            if let uri = row.artworkUri { found[row.id] = uri }
        }
        return found
    }

    func rememberCover(_ uri: String?, of albumId: String) {
        albumCovers.withLock { known in
            if known.count >= MPDCoverStore.capacity { known.removeAll() }
            known[albumId] = .some(uri)
        }
    }

    public func item(id: String) async throws -> BrowseItem? {
        guard let parsed = MPDLibraryId(id) else { return nil }
        switch parsed {
        case .root: return BrowseItem(id: MPDLibraryId.rootId, title: "MPD", browsable: true, mediaType: .folder)
        case .tab(let tab): return Self.tabItem(tab)
        case .album(let albumArtist, let album): return Self.albumItem(albumArtist: albumArtist, album: album)
        case .artist(let name): return Self.artistItem(name)
        case .playlist(let name): return Self.playlistItem(name)
        case .directory(let path): return Self.directoryItem(path)
        case .song(let uri, let list):
            let response = try await call(MPDCommand("lsinfo", uri))
            guard let song = MPDSong.songs(in: response).first(where: { $0.uri == uri }) else { return nil }
            return song.item(in: list, artworkUri: await covers.cover(for: song))
        }
    }

    public func parentId(of id: String) -> String? {
        switch MPDLibraryId(id) {
        case .song(_, let list): list.id
        case .tab: MPDLibraryId.rootId
        case .album, .artist, .playlist, .directory, .root, nil: nil
        }
    }

    public var supportsSearch: Bool { true }

    /// Songs where any tag or the path contains `query` (MPD's `search any`, case-insensitive).
    public func search(query: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        let needle = query.trimmingSpaces
        guard !needle.isEmpty, page >= 0, pageSize > 0 else { return [] }
        let (start, overflow) = page.multipliedReportingOverflow(by: pageSize)
        guard !overflow, start < Self.searchLimit else { return [] }
        let end = min(start + pageSize, Self.searchLimit)
        let response = try await call(MPDCommand("search", "any", needle, "window", "\(start):\(end)"))
        let songs = MPDSong.songs(in: response)
        let items = songs.map { $0.item(in: Self.context(of: $0)) }
        return await withCovers(items, in: nil, songs: songs)
    }

    /// The row that heads the Albums, Artists and Folders tabs while MPD is reading the library
    /// (`updating_db` in its status; on a first scan the database starts empty): a car is told why
    /// a list is empty or short, not only the log. Browsable, with nothing in it: cars drop a row
    /// that is neither browsable nor playable (Android Auto does, and so do the browse rules); the
    /// tabs are read again when an update begins and ends, and pushed (children-changed) when
    /// they differ.
    public static let updatingNotice = BrowseItem(
        id: "notice/updating", title: "MPD is still reading your music",
        subtitle: "This list fills in as MPD's scan goes on", browsable: true, playable: false)

    /// The tabs that show ``updatingNotice``.
    static func showsUpdating(_ parent: MPDLibraryId) -> Bool {
        if case .tab(let tab) = parent { tab != .playlists } else { false }
    }

    /// The whole list of `parent`, from the memo or from MPD.
    func whole(_ parent: MPDLibraryId) async throws -> [BrowseItem] {
        if let known = memo.withLock({ $0[parent.id] }) { return known }
        // Asked before the list: a list read while MPD's scan runs may be short (and MPD may hold
        // the answer until the scan is done), so it carries the notice until the scan's end is seen.
        let updating = Self.showsUpdating(parent) ? try await call(MPDCommand("status"))["updating_db"] != nil : false
        var list = try await fetch(parent)
        if updating { list.insert(Self.updatingNotice, at: 0) }
        memo.withLock { memo in
            if memo.count >= Self.memoCapacity { memo.removeAll() }
            memo[parent.id] = list
        }
        return list
    }

    /// Asks MPD again for every remembered list affected by `subsystems` (`database`,
    /// `stored_playlist`) and returns the ids of those that changed. Covers are forgotten on a
    /// database change.
    public func refresh(_ subsystems: Set<String>) async -> [String] {
        let database = subsystems.contains("database")
        // An update began or ended: the tabs gain or lose the updating notice (an update that
        // found nothing new changes no database, and still ends).
        let update = subsystems.contains("update")
        guard database || update || subsystems.contains("stored_playlist") else { return [] }
        if database {
            covers.forget()
            albumCovers.withLock { $0.removeAll() }
        }
        let remembered = memo.withLock { $0 }
        var changed: [String] = []
        for (id, old) in remembered {
            guard let parent = MPDLibraryId(id) else { continue }
            let affected: Bool
            switch parent {
            case .root: affected = false
            case .tab(.playlists), .playlist: affected = database || subsystems.contains("stored_playlist")
            default: affected = database
            }
            guard affected || (update && Self.showsUpdating(parent)) else { continue }
            memo.withLock { _ = $0.removeValue(forKey: id) }
            let new = try? await whole(parent)
            memo.withLock { $0[id] = new }
            if new != old { changed.append(id) }
        }
        return changed.sorted()
    }

    /// Forgets every remembered list (MPD came back: anything may have changed).
    public func forgetAll() {
        memo.withLock { $0.removeAll() }
        covers.forget()
        albumCovers.withLock { $0.removeAll() }
    }

    /// One command, with MPD's refusals of the password turned into the screen a car can show.
    func call(_ command: MPDCommand) async throws -> MPDResponse {
        do throws(MPDError) {
            return try await client.run(command)
        } catch {
            if case .password = error {
                throw BrowseError(
                    code: .authenticationExpired,
                    message: "MPD refused Dashport's password. Set the password from mpd.conf in Dashport's configuration.",
                    resolution: BrowseError.Resolution(label: "Check the MPD password"))
            }
            throw error
        }
    }
}

extension String {
    var trimmingSpaces: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
