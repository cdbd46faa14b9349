// Sources/DashportMPDSource/MPDLibraryProvider+Lists.swift - each list of the tree, asked of MPD.

import DashportBrowse
import DashportMPD
import Synchronization

extension MPDLibraryProvider {
    static let tabTitles: [MPDLibraryId.Tab: String] = [
        .albums: "Albums", .artists: "Artists", .playlists: "Playlists", .folders: "Folders",
    ]

    static func tabItem(_ tab: MPDLibraryId.Tab) -> BrowseItem {
        BrowseItem(
            id: MPDLibraryId.tab(tab).id, title: tabTitles[tab] ?? tab.rawValue, browsable: true,
            childStyle: tab == .albums ? .grid : .list, mediaType: tab == .albums ? .album : tab == .artists ? .artist : .folder)
    }

    static func albumItem(albumArtist: String, album: String, artworkUri: String? = nil) -> BrowseItem {
        BrowseItem(
            id: MPDLibraryId.album(albumArtist: albumArtist, album: album).id, title: album,
            subtitle: albumArtist.isEmpty ? nil : albumArtist,
            artworkUri: artworkUri, browsable: true, playable: true, childStyle: .list, mediaType: .album, artist: albumArtist, album: album
        )
    }

    static func artistItem(_ name: String) -> BrowseItem {
        BrowseItem(id: MPDLibraryId.artist(name).id, title: name, browsable: true, childStyle: .grid, mediaType: .artist)
    }

    static func playlistItem(_ name: String) -> BrowseItem {
        BrowseItem(
            id: MPDLibraryId.playlist(name).id, title: name, browsable: true, playable: true, childStyle: .list, mediaType: .playlist)
    }

    static func directoryItem(_ path: String) -> BrowseItem {
        let name = path.split(separator: "/").last.map(String.init) ?? "Folders"
        return BrowseItem(id: MPDLibraryId.directory(path).id, title: name, browsable: true, childStyle: .list, mediaType: .folder)
    }

    /// Sorting for people: case-insensitive, then exact.
    static func before(_ a: String, _ b: String) -> Bool {
        let (la, lb) = (a.lowercased(), b.lowercased())
        return la == lb ? a < b : la < lb
    }

    /// The whole list of `parent`, asked of MPD (no covers).
    func fetch(_ parent: MPDLibraryId) async throws -> [BrowseItem] {
        switch parent {
        case .root:
            return MPDLibraryId.Tab.allCases.map(Self.tabItem)
        case .tab(.albums):
            // `list album group albumartist`: each `AlbumArtist:` line, then its albums.
            let response = try await call(MPDCommand("list", "album", "group", "albumartist"))
            var albumArtist = ""
            var albums: [(String, String)] = []
            for field in response.fields {
                if field.key == "AlbumArtist" {
                    albumArtist = field.value
                } else if field.key == "Album", !field.value.isEmpty {
                    albums.append((albumArtist, field.value))
                }
            }
            albums.sort { $0.1 == $1.1 ? Self.before($0.0, $1.0) : Self.before($0.1, $1.1) }
            return albums.map { Self.albumItem(albumArtist: $0.0, album: $0.1) }
        case .tab(.artists):
            let names = try await call(MPDCommand("list", "albumartist")).values(of: "AlbumArtist").filter { !$0.isEmpty }
            return names.sorted(by: Self.before).map(Self.artistItem)
        case .tab(.playlists):
            let names = try await call(MPDCommand("listplaylists")).values(of: "playlist")
            return names.sorted(by: Self.before).map(Self.playlistItem)
        case .tab(.folders):
            return try await fetch(.directory(""))
        case .artist(let name):
            let albums = try await call(MPDCommand("list", "album", "albumartist", name)).values(of: "Album").filter { !$0.isEmpty }
            return albums.sorted(by: Self.before).map { Self.albumItem(albumArtist: name, album: $0) }
        case .album(let albumArtist, let album):
            return try await albumSongs(albumArtist: albumArtist, album: album).map { $0.item(in: parent) }
        case .playlist(let name):
            return MPDSong.songs(in: try await call(MPDCommand("listplaylistinfo", name))).map { $0.item(in: parent) }
        case .directory(let path):
            let response = try await call(MPDCommand("lsinfo", path))
            var folders: [BrowseItem] = []
            var songs: [BrowseItem] = []
            for record in response.records(startingAt: ["file", "directory", "playlist"]) {
                guard let first = record.first else { continue }
                if first.key == "directory" {
                    folders.append(Self.directoryItem(first.value))
                } else if let song = MPDSong(record) {
                    songs.append(song.item(in: parent))
                }
            }
            return folders.sorted { Self.before($0.title, $1.title) } + songs
        case .song:
            return []
        }
    }

    /// An album's songs in disc/track order. MPD's album artist falls back to the artist (in `list`
    /// and `find` alike); an album with neither is listed under "" and found by its name alone.
    func albumSongs(albumArtist: String, album: String, window: String? = nil) async throws -> [MPDSong] {
        let filter = albumArtist.isEmpty ? ["album", album] : ["albumartist", albumArtist, "album", album]
        let songs = MPDSong.songs(in: try await call(MPDCommand("find", arguments: filter + (window.map { ["window", $0] } ?? []))))
        return (albumArtist.isEmpty ? songs.filter { $0.albumArtist == nil } : songs).sorted(by: MPDSong.albumOrder)
    }

    /// The list a song found by search belongs to: its album, or its folder when it has no album tag.
    static func context(of song: MPDSong) -> MPDLibraryId {
        guard let album = song.album, !album.isEmpty else { return .directory(song.directory) }
        return .album(albumArtist: song.albumArtist ?? "", album: album)
    }

    /// The page's rows with covers: an album's from its first song, a song's from its folder.
    func withCovers(_ items: [BrowseItem], in parent: MPDLibraryId?, songs: [MPDSong]? = nil) async -> [BrowseItem] {
        var result = items
        var albumCover: String??
        for index in result.indices {
            guard let id = MPDLibraryId(result[index].id) else { continue }
            switch id {
            case .album(let albumArtist, let album):
                if let known = albumCovers.withLock({ $0[id.id] }) {
                    result[index].artworkUri = known
                    continue
                }
                let first = try? await albumSongs(albumArtist: albumArtist, album: album, window: albumArtist.isEmpty ? nil : "0:1")
                guard let song = first?.first else { continue }
                let cover = await covers.cover(for: song)
                result[index].artworkUri = cover
                // Remembered only when MPD answered (the cover store keeps no connection fault).
                if cover != nil || covers.knows(song) { rememberCover(cover, of: id.id) }
            case .song(let uri, _):
                if case .album = parent, let albumCover {
                    result[index].artworkUri = albumCover
                    continue
                }
                let song = songs?.first { $0.uri == uri } ?? MPDSong([MPDField("file", uri)])
                guard let song else { continue }
                let cover = await covers.cover(for: song)
                result[index].artworkUri = cover
                if case .album = parent { albumCover = .some(cover) }
            default: continue
            }
        }
        return result
    }
}
