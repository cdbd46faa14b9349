// Sources/DashportMPDSource/MPDLibraryId.swift - browse ids made from MPD's tags and paths, stable across restarts.

/// What a browse id of the MPD library names. Ids are made from MPD's tags and paths only (never a
/// position or a counter), so they survive a restart of Dashport or MPD and a database update; a
/// car that cached one comes back to the same list.
///
/// - `tab/albums`, `tab/artists`, `tab/playlists`, `tab/folders`: the four root tabs.
/// - `album/<album artist>/<album>`, `artist/<album artist>`, `playlist/<name>`, `dir/<path>`:
///   lists (components escaped: `%` `/` `#` as `%25` `%2F` `%23`).
/// - `<list id>#<song uri>`: a song in that list (the uri raw, after the first `#`), so "play this"
///   queues the list it was chosen from.
public enum MPDLibraryId: Sendable, Hashable {
    case root
    case tab(Tab)
    case album(albumArtist: String, album: String)
    case artist(String)
    case playlist(String)
    case directory(String)
    indirect case song(uri: String, in: MPDLibraryId)

    public enum Tab: String, Sendable, Hashable, CaseIterable {
        case albums, artists, playlists, folders
    }

    public static let rootId = "__root__"

    public init?(_ id: String) {
        if id == Self.rootId {
            self = .root
            return
        }
        if let hash = id.firstIndex(of: "#") {
            guard let list = MPDLibraryId(String(id[..<hash])), list.isList else { return nil }
            let uri = String(id[id.index(after: hash)...])
            guard !uri.isEmpty else { return nil }
            self = .song(uri: uri, in: list)
            return
        }
        let parts = id.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let kind = parts.first else { return nil }
        let rest = parts.dropFirst().map(Self.unescaped)
        switch (kind, rest.count) {
        case ("tab", 1):
            guard let tab = Tab(rawValue: rest[0]) else { return nil }
            self = .tab(tab)
        case ("album", 2): self = .album(albumArtist: rest[0], album: rest[1])
        case ("artist", 1): self = .artist(rest[0])
        case ("playlist", 1): self = .playlist(rest[0])
        case ("dir", 1): self = .directory(rest[0])
        default: return nil
        }
    }

    public var id: String {
        switch self {
        case .root: Self.rootId
        case .tab(let tab): "tab/" + tab.rawValue
        case .album(let albumArtist, let album): "album/" + Self.escaped(albumArtist) + "/" + Self.escaped(album)
        case .artist(let name): "artist/" + Self.escaped(name)
        case .playlist(let name): "playlist/" + Self.escaped(name)
        case .directory(let path): "dir/" + Self.escaped(path)
        case .song(let uri, let list): list.id + "#" + uri
        }
    }

    /// Whether it names a list (has children), not a song.
    public var isList: Bool {
        if case .song = self { return false }
        return true
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "%": out += "%25"
            case "/": out += "%2F"
            case "#": out += "%23"
            default: out.append(character)
            }
        }
        return out
    }

    static func unescaped(_ text: String) -> String {
        text.replacingAll("%2F", with: "/").replacingAll("%23", with: "#").replacingAll("%25", with: "%")
    }
}

extension String {
    /// Every occurrence of `target` replaced (FoundationEssentials-free).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty, contains(target) else { return self }
        var out = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            out += rest[..<range.lowerBound]
            out += replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}
