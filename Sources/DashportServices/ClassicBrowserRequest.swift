// Sources/DashportServices/ClassicBrowserRequest.swift - one MEDIA_GET_NODE while it waits for its answers.

import DashportBrowse

/// One MEDIA_GET_NODE in flight: what it asked for, which answers it still waits for, what came.
///
/// It waits in two phases: first for the browse core (the item and one or two pages of children),
/// then for the covers of what the core returned. Each phase ends when its last answer arrives or
/// at its deadline, whichever is first.
struct ClassicBrowserRequest: Sendable {
    enum Phase: Sendable, Hashable {
        case browsing
        case fetchingArtwork
    }

    /// The path as the head unit sent it (echoed in the answer).
    let requestPath: String
    /// What the path denotes (a bad path still has the kind its prefix names).
    let kind: ClassicBrowserPath.Kind
    /// The offset the head unit asked for (0 or more; always 0 for the root).
    let start: Int
    let wantsArt: Bool
    /// Children per page, and the first of the (at most two) core pages that cover
    /// `start ..< start + pageSize`.
    let pageSize: Int
    let firstPage: Int

    var phase = Phase.browsing
    var deadline: Duration

    /// Outstanding core requests: the item, and pages by their index (0 or 1) after `firstPage`.
    var itemTicket: ClassicBrowserService.Ticket?
    var pageTickets: [ClassicBrowserService.Ticket: Int] = [:]
    var item: BrowseItem?
    var pages: [Int: BrowseAnswer] = [:]

    /// Outstanding covers by ticket, and the ones that arrived, by URI.
    var artTickets: [ClassicBrowserService.Ticket: String] = [:]
    var art: [String: [UInt8]] = [:]

    /// Whether the current phase has every answer it waits for.
    var isPhaseComplete: Bool {
        switch phase {
        case .browsing: itemTicket == nil && pageTickets.isEmpty
        case .fetchingArtwork: artTickets.isEmpty
        }
    }

    /// Every ticket still outstanding.
    var outstandingTickets: [ClassicBrowserService.Ticket] {
        (itemTicket.map { [$0] } ?? []) + Array(pageTickets.keys) + Array(artTickets.keys)
    }

    /// The node's content from what the core answered so far (missing answers count as empty).
    ///
    /// `problems` collects the error screens the core answered with: AAP classic cannot draw them,
    /// so the list is empty.
    func content(problems: inout [BrowseError]) -> ClassicBrowserNodeContent {
        var content = ClassicBrowserNodeContent(
            requestPath: requestPath, kind: kind, start: start, item: item, children: [], total: 0)
        switch kind {
        case .root, .source, .list:
            var items: [BrowseItem] = []
            var total: Int?
            for index in pages.keys.sorted() {
                // Pages are contiguous: a later page only counts after every earlier one came.
                guard index == 0 || pages[index - 1] != nil, let answer = pages[index] else { break }
                switch answer {
                case .items(let page, let pageTotal, _):
                    items += page
                    total = total ?? pageTotal
                case .error(let error):
                    problems.append(error)
                    return content
                }
            }
            let offset = start - firstPage * pageSize
            let limit = kind == .root ? items.count : pageSize
            if offset < items.count {
                content.children = Array(items[offset..<min(items.count, offset + limit)])
            }
            content.total = total ?? 0
        case .single:
            // A list of the one item: a song at offset 0, nothing after it.
            guard let item else { break }
            content.total = 1
            if start == 0 { content.children = [item] }
        case .song:
            break
        }
        return content
    }
}
