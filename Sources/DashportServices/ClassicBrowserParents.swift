// Sources/DashportServices/ClassicBrowserParents.swift - which list a classic head unit showed each song in.

import DashportBrowse

/// The list each playable item was last shown in by the classic browser, so that ENTER on its song
/// path plays it from that list (its queue is that list's tracks), not from the first parent the
/// core finds: the same track can be in *Recent* and in its album.
///
/// Paths stay stateless (a head unit may keep them across reconnects); this only remembers what
/// this connection showed. It holds at most ``limit`` items and starts over when full, so a head
/// unit paging through a large library cannot grow it without bound. A song it does not know plays
/// without a parent, and the core finds one.
struct ClassicBrowserParents: Sendable {
    /// The most items remembered.
    static let limit = 4096

    private var parents: [String: String] = [:]

    /// Remembers the playable children of a source or list node as shown in `parentId`; a later
    /// list showing the same item wins (it is the one on screen).
    mutating func shown(_ children: [BrowseItem], in parentId: String) {
        for child in children where child.playable {
            if parents.count >= Self.limit, parents[child.id] == nil { parents.removeAll(keepingCapacity: true) }
            parents[child.id] = parentId
        }
    }

    /// The list `itemId` was last shown in, if this connection showed it.
    func parent(of itemId: String) -> String? { parents[itemId] }
}
