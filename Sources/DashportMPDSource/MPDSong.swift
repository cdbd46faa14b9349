// Sources/DashportMPDSource/MPDSong.swift - one song of MPD's answers, and its browse item.

import DashportBrowse
import DashportMPD

/// A song as `find`, `lsinfo`, `playlistinfo` describe it (the fields after its `file:`).
struct MPDSong: Sendable, Hashable {
    var uri: String
    var tags: [String: String] = [:]

    init?(_ fields: [MPDField]) {
        guard let first = fields.first, first.key == "file" else { return nil }
        uri = first.value
        for field in fields.dropFirst() where tags[field.key] == nil { tags[field.key] = field.value }
    }

    static func songs(in response: MPDResponse) -> [MPDSong] {
        response.records(startingAt: ["file", "directory", "playlist"]).compactMap(MPDSong.init)
    }

    var title: String { tags["Title"] ?? String(uri.split(separator: "/").last ?? Substring(uri)) }
    var artist: String? { tags["Artist"] }
    var album: String? { tags["Album"] }
    var albumArtist: String? { tags["AlbumArtist"] ?? tags["Artist"] }
    /// `Disc: 2` or `Disc: 2/3`.
    var disc: Int? { Self.leadingNumber(tags["Disc"]) }
    var track: Int? { Self.leadingNumber(tags["Track"]) }
    var year: Int? { Self.leadingNumber(tags["Date"]).flatMap { $0 > 0 ? $0 : nil } }
    var durationMs: Int64? {
        guard let text = tags["duration"] ?? tags["Time"], let seconds = Double(text), seconds.isFinite, seconds >= 0 else { return nil }
        return Int64(seconds * 1000)
    }
    /// The song's folder ("" at the top).
    var directory: String {
        guard let slash = uri.lastIndex(of: "/") else { return "" }
        return String(uri[..<slash])
    }

    static func leadingNumber(_ text: String?) -> Int? {
        guard let text else { return nil }
        return Int(text.prefix { $0.isASCII && $0.isNumber })
    }

    /// Disc, then track, then path: an album's order (a missing number sorts first).
    static func albumOrder(_ a: MPDSong, _ b: MPDSong) -> Bool {
        ((a.disc ?? 0), (a.track ?? 0), a.uri) < ((b.disc ?? 0), (b.track ?? 0), b.uri)
    }

    /// The row for this song inside the list `list`.
    func item(in list: MPDLibraryId, artworkUri: String? = nil) -> BrowseItem {
        BrowseItem(
            id: MPDLibraryId.song(uri: uri, in: list).id, title: title, subtitle: artist, artworkUri: artworkUri, playable: true,
            mediaType: .music, artist: artist, album: album, durationMs: durationMs,
            metadata: BrowseItem.Metadata(
                albumArtist: tags["AlbumArtist"], genre: tags["Genre"], trackNumber: track, discNumber: disc, year: year))
    }
}
