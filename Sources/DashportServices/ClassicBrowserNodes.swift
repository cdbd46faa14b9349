// Sources/DashportServices/ClassicBrowserNodes.swift - browse items to AAP classic browser nodes (pure).

import DashportBrowse
import DashportLog
import DashportMessages

/// Everything one node is built from, once the browse core has answered.
struct ClassicBrowserNodeContent: Sendable {
    /// The path the head unit asked for; every node echoes it.
    var requestPath: String
    /// The node's kind; a bad path still gets an (empty) node of the kind its prefix names.
    var kind: ClassicBrowserPath.Kind
    /// The offset of `children[0]` in the whole list.
    var start: Int
    /// The source, list or song itself (nil for the root, or when the core has none).
    var item: BrowseItem?
    /// One page of children (tabs for the root).
    var children: [BrowseItem]
    /// How many children the whole list has.
    var total: Int
}

/// Turns browse items into the node messages of aap-protocol.md §4.2.
///
/// Under a source, a browsable child is a list (`/list/<id>`) and a playable-only child is a list
/// of that one song (`/single/<id>`), so a source node never hides a child and its `total` is the
/// core's. Under a list, every child is a song: a playable one has a song path, a browsable-only
/// one keeps a list path, so a head unit that renders whatever node a path returns can still open
/// it (one that expects a song there gets a list node). Covers go in order — the node's own first,
/// then its children's — until ``ClassicBrowserService/Configuration/maxArtworkBytesPerNode``.
enum ClassicBrowserNodes {
    /// The cover URIs the node would carry, in the order they are placed, without repeats.
    static func artworkURIs(for content: ClassicBrowserNodeContent) -> [String] {
        var holders: [BrowseItem?]
        switch content.kind {
        case .root: holders = content.children
        case .source: holders = [content.item] + content.children
        case .list, .single, .song: holders = [content.item]
        }
        var seen = Set<String>()
        return holders.compactMap { $0?.artworkUri }.filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    /// The node's message id and body. `art` holds the covers that arrived, by URI; nil when the
    /// car asked for none.
    static func message(
        for content: ClassicBrowserNodeContent, art: [String: [UInt8]]?, artBudget: Int, logger: Logger
    ) -> (id: AAP.MediaBrowserMessageId, body: [UInt8]) {
        var covers = Covers(art: art, budget: artBudget)
        defer {
            if covers.leftOut > 0 {
                logger.notice(
                    "covers left out: over the node's artwork budget",
                    ["path": ClassicBrowserService.clipped(content.requestPath), "count": "\(covers.leftOut)", "budget": "\(artBudget)"])
            }
        }
        let start = Int32(clamping: max(0, content.start))
        let total = Int32(clamping: max(0, content.total))
        switch content.kind {
        case .root:
            let sources = content.children.map { tab in
                AAP.MediaSource(
                    path: ClassicBrowserPath.source(id: tab.id).string, name: tab.title,
                    albumArt: covers.take(tab.artworkUri))
            }
            return (.rootNode, AAP.MediaRootNode(path: content.requestPath, mediaSources: sources).serializedBytes())
        case .source:
            let source = AAP.MediaSource(
                path: content.requestPath, name: content.item?.title ?? "", albumArt: covers.take(content.item?.artworkUri))
            let lists = content.children.map { child in
                AAP.MediaList(
                    path: (child.browsable ? ClassicBrowserPath.list(id: child.id) : .single(id: child.id)).string,
                    type: listType(child.mediaType), name: child.title, albumArt: covers.take(child.artworkUri))
            }
            let node = AAP.MediaSourceNode(source: source, start: start, total: total, lists: lists)
            return (.sourceNode, node.serializedBytes())
        case .list, .single:
            let list = AAP.MediaList(
                path: content.requestPath, type: listType(content.item?.mediaType), name: content.item?.title,
                albumArt: covers.take(content.item?.artworkUri))
            let songs = content.children.map { child in
                song(child, path: child.playable ? .song(id: child.id) : .list(id: child.id))
            }
            let node = AAP.MediaListNode(list: list, start: start, total: total, songs: songs)
            return (.listNode, node.serializedBytes())
        case .song:
            guard let item = content.item else {
                return (.songNode, AAP.MediaSongNode(song: AAP.MediaSong(path: content.requestPath)).serializedBytes())
            }
            var node = AAP.MediaSongNode(song: song(item, path: nil), albumArt: covers.take(item.artworkUri))
            node.song.path = content.requestPath
            node.durationSeconds = item.durationMs.flatMap { $0 >= 0 ? UInt32(clamping: $0 / 1000) : nil }
            return (.songNode, node.serializedBytes())
        }
    }

    /// The classic list type for a browse media type (folders, podcasts and the rest are UNKNOWN).
    static func listType(_ mediaType: BrowseItem.MediaType?) -> AAP.MediaList.ListType {
        switch mediaType {
        case .album: .album
        case .playlist: .playlist
        case .artist: .artist
        case .radio: .station
        case .genre: .genre
        default: .unknown
        }
    }

    private static func song(_ item: BrowseItem, path: ClassicBrowserPath?) -> AAP.MediaSong {
        AAP.MediaSong(path: path?.string ?? "", name: item.title, artist: item.artist ?? item.subtitle, album: item.album)
    }

    /// Hands out arrived covers until the node's byte budget is spent.
    private struct Covers {
        let art: [String: [UInt8]]?
        var budget: Int
        var leftOut = 0

        mutating func take(_ uri: String?) -> [UInt8]? {
            guard let uri, let bytes = art?[uri] else { return nil }
            guard bytes.count <= budget else {
                leftOut += 1
                return nil
            }
            budget -= bytes.count
            return bytes
        }
    }
}
