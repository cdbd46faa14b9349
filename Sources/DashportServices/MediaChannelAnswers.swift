// Sources/DashportServices/MediaChannelAnswers.swift - the driver's answers, turned into BROWSE_RESULT,
// COMMAND_RESULT and ARTWORK_RESULT with the car's request id.

public import DashportBrowse
import DashportMessages
public import DashportSession
import DashportLog

extension MediaChannelService {
    /// The browse core's answer to a `.children` or `.search` request: a page of items (with the
    /// total and whether a next page exists) or an error screen. A screen the car cannot draw
    /// becomes an empty page. An answer too large for one message is rejected `unavailable`.
    /// `artworkKeys` maps the items' artwork URIs (`artworkURIs(in:)`) to registered keys.
    ///
    /// `encoded` is the page encoded before (``encodedItemPage(_:page:pageSize:artworkKeys:)``, kept
    /// with a memoised answer): used when it was made for this request's page and page size, it
    /// spares building and encoding every item again; the bytes are the same.
    public mutating func browseAnswered(
        _ ticket: MediaChannelTicket, _ answer: BrowseAnswer, artworkKeys: [String: String], encoded: EncodedItemPage? = nil
    ) -> [MediaChannelAction] {
        guard
            let request = take(
                ticket, "a browse answer",
                where: { kind in
                    if case .children = kind { return true }
                    if case .search = kind { return true }
                    return false
                })
        else { return [] }
        let (page, pageSize): (Int, Int) =
            switch request.kind {
            case .children(let page, let size), .search(let page, let size): (page, size)
            default: (0, 0)
            }
        if let encoded, encoded.page == page, encoded.pageSize == pageSize, case .items = answer,
            let body = Self.browseResultBody(requestId: request.requestId, encodedPage: encoded.bytes)
        {
            return [send(.browseResult, body: body)]
        }
        let outcome: DashportMedia.BrowseResult.Outcome
        switch answer {
        case .items(let items, let total, _):
            outcome = .items(Self.wirePage(items, total: total, page: page, pageSize: pageSize) { artworkKey($0, artworkKeys) })
        case .error(let error) where profile.drawableErrors.contains(error.code):
            let resolution = error.resolution.map {
                DashportMedia.BrowseErrorScreen.Resolution(label: $0.label, url: $0.url)
            }
            outcome = .errorScreen(
                DashportMedia.BrowseErrorScreen(code: error.code.wire, message: error.message, resolution: resolution))
        case .error(let error):
            logger.info(
                "the car cannot draw \(error.code.rawValue): sent an empty page", ["request": String(request.requestId)])
            outcome = .items(DashportMedia.ItemPage(items: [], page: UInt32(clamping: page), total: 0, hasMore: false))
        }
        return [browseResult(request.requestId, outcome)]
    }

    /// The ITEM_PAGE an `.items` answer to a request for `page` of `pageSize` becomes, encoded once
    /// so that a memoised answer is not built and encoded again for every car that asks (issue 22,
    /// item 2); nil for an error screen. Hand it to ``browseAnswered(_:_:artworkKeys:encoded:)``.
    public static func encodedItemPage(
        _ answer: BrowseAnswer, page: Int, pageSize: Int, artworkKeys: [String: String]
    ) -> EncodedItemPage? {
        guard case .items(let items, let total, _) = answer else { return nil }
        let wire = wirePage(items, total: total, page: page, pageSize: pageSize) { validKey($0, artworkKeys) }
        return EncodedItemPage(page: page, pageSize: pageSize, bytes: wire.serializedBytes())
    }

    /// The ITEM_PAGE of `items` (of `total`) answering a request for `page` of `pageSize`, each
    /// item's artwork URI replaced by `key(uri)`: one definition for a fresh answer and for the
    /// page a memoised one keeps encoded.
    static func wirePage(
        _ items: [BrowseItem], total: Int, page: Int, pageSize: Int, key: (String?) -> String?
    ) -> DashportMedia.ItemPage {
        let (start, overflow) = page.multipliedReportingOverflow(by: pageSize)
        let hasMore = !overflow && start < total && total - start > items.count
        return DashportMedia.ItemPage(
            items: items.map { wireItem($0, key: key($0.artworkUri)) }, page: UInt32(clamping: page),
            total: UInt32(clamping: total), hasMore: hasMore)
    }

    /// BROWSE_RESULT's body with `encodedPage` as its `items` outcome: field 1 (`request_id`, a
    /// varint) then field 2 (the page, length-delimited), the order protobuf-c packs them in, so
    /// the bytes are those of encoding the whole message. Nil when it would not fit a message.
    static func browseResultBody(requestId: UInt32, encodedPage: [UInt8]) -> [UInt8]? {
        let size = 1 + varintSize(UInt64(requestId)) + 1 + varintSize(UInt64(encodedPage.count)) + encodedPage.count
        guard size <= WireLimits.maximumMessageBytes else { return nil }
        var body: [UInt8] = []
        body.reserveCapacity(size)
        body.append(1 << 3 | 0)  // field 1, varint
        appendVarint(UInt64(requestId), to: &body)
        body.append(2 << 3 | 2)  // field 2, length-delimited
        appendVarint(UInt64(encodedPage.count), to: &body)
        body.append(contentsOf: encodedPage)
        return body
    }

    private static func varintSize(_ value: UInt64) -> Int {
        var value = value
        var size = 1
        while value >= 0x80 {
            value >>= 7
            size += 1
        }
        return size
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// The browse core's answer to an `.item` request: a page of that one item, or an empty page.
    public mutating func browseAnswered(
        _ ticket: MediaChannelTicket, item: BrowseItem?, artworkKeys: [String: String]
    ) -> [MediaChannelAction] {
        guard let request = take(ticket, "an item answer", where: { $0 == .item }) else { return [] }
        let items = item.map { [$0] } ?? []
        let page = itemPage(items, page: 0, total: items.count, hasMore: false, keys: artworkKeys)
        return [browseResult(request.requestId, .items(page))]
    }

    /// The artwork URIs of a browse answer's items, for the driver to register before handing the
    /// answer in.
    public static func artworkURIs(in answer: BrowseAnswer) -> Set<String> {
        Set(answer.items.compactMap(\.artworkUri))
    }

    /// The artwork URI of an item answer, for the driver to register before handing it in.
    public static func artworkURIs(in item: BrowseItem?) -> Set<String> {
        Set([item?.artworkUri].compactMap { $0 })
    }

    /// The session's answer to a command: accepted, or rejected with a wire reason classified from
    /// the session's words (a command the session did not declare is `notInCapabilities`, a voice
    /// play without search `notSupported`, an unknown id `notFound`, a bad argument
    /// `invalidArgument`, anything else `failed`); the words go along as the message.
    public mutating func commandAnswered(_ ticket: MediaChannelTicket, _ result: CommandResult) -> [MediaChannelAction] {
        guard let request = take(ticket, "a command answer", where: { $0 == .command }) else { return [] }
        return [send(.commandResult, commandResult(request.requestId, result))]
    }

    /// The artwork endpoint's answer: the image, or an error (never withheld).
    public mutating func artworkAnswered(
        _ ticket: MediaChannelTicket, _ result: Result<MediaChannelArtworkImage, MediaChannelArtworkFailure>
    ) -> [MediaChannelAction] {
        guard let request = take(ticket, "an artwork answer", where: { $0 == .artwork }) else { return [] }
        let outcome: DashportMedia.ArtworkResult.Outcome
        switch result {
        case .success(let image):
            outcome = .image(
                DashportMedia.ArtworkImage(
                    data: image.bytes, mimeType: image.mimeType,
                    width: UInt32(clamping: image.width), height: UInt32(clamping: image.height)))
        case .failure(let failure):
            outcome = .error(DashportMedia.ArtworkError(code: failure.code.wire, message: failure.message))
        }
        let body = DashportMedia.ArtworkResult(requestId: request.requestId, outcome: outcome).serializedBytes()
        guard body.count <= WireLimits.maximumMessageBytes else {
            logger.error("an artwork image is larger than a message may be: answered with an error")
            let error = DashportMedia.ArtworkError(code: .unknown, message: "the image is too large to send")
            return [send(.artworkResult, DashportMedia.ArtworkResult(requestId: request.requestId, outcome: .error(error)))]
        }
        return [send(.artworkResult, body: body)]
    }

    // MARK: - Helpers

    /// Removes and returns the pending request of `ticket` when it is of the expected kind. An
    /// unknown ticket (answered twice, or never handed out) and a wrong kind are logged; a wrong
    /// kind leaves the request pending so the right answer can still come.
    private mutating func take(
        _ ticket: MediaChannelTicket, _ what: String, where matches: (PendingRequest.Kind) -> Bool
    ) -> PendingRequest? {
        guard let request = pending[ticket] else {
            logger.warning("\(what) for a ticket that is not pending: ignored", ["ticket": String(ticket.rawValue)])
            return nil
        }
        guard matches(request.kind) else {
            logger.error("\(what) for a ticket of another kind: ignored", ["ticket": String(ticket.rawValue)])
            return nil
        }
        pending[ticket] = nil
        return request
    }

    private func itemPage(
        _ items: [BrowseItem], page: Int, total: Int, hasMore: Bool, keys: [String: String]
    ) -> DashportMedia.ItemPage {
        DashportMedia.ItemPage(
            items: items.map { wireItem($0, keys: keys) }, page: UInt32(clamping: page),
            total: UInt32(clamping: total), hasMore: hasMore)
    }

    /// BROWSE_RESULT, or a rejection when it would not fit in one message.
    private func browseResult(_ requestId: UInt32, _ outcome: DashportMedia.BrowseResult.Outcome) -> MediaChannelAction {
        let body = DashportMedia.BrowseResult(requestId: requestId, outcome: outcome).serializedBytes()
        guard body.count <= WireLimits.maximumMessageBytes else {
            logger.error("a browse page is larger than a message may be: rejected", ["request": String(requestId)])
            let rejected = DashportMedia.RequestRejected(
                reason: .unavailable, message: "the page is too large; ask for a smaller page")
            return send(.browseResult, DashportMedia.BrowseResult(requestId: requestId, outcome: .rejected(rejected)))
        }
        return send(.browseResult, body: body)
    }

    /// A browse item on the wire: every field, with the artwork URI replaced by its key.
    func wireItem(_ item: BrowseItem, keys: [String: String]) -> DashportMedia.BrowseItem {
        Self.wireItem(item, key: artworkKey(item.artworkUri, keys))
    }

    /// A browse item on the wire with `key` for its artwork.
    static func wireItem(_ item: BrowseItem, key: String?) -> DashportMedia.BrowseItem {
        DashportMedia.BrowseItem(
            id: item.id, title: item.title, subtitle: item.subtitle, artworkKey: key,
            browsable: item.browsable, playable: item.playable, childStyle: item.childStyle?.wire, group: item.group,
            explicit: item.explicit, completion: item.completion, mediaType: item.mediaType?.wire,
            artist: item.artist, album: item.album, durationMs: item.durationMs)
    }
}

extension MediaChannelArtworkFailure.Code {
    var wire: DashportMedia.ArtworkError.Code {
        switch self {
        case .notFound: .notFound
        case .fetchFailed: .fetchFailed
        case .decodeFailed: .decodeFailed
        case .busy: .busy
        case .unknown: .unknown
        }
    }
}

extension BrowseItem.ChildStyle {
    var wire: DashportMedia.ChildStyle {
        switch self {
        case .list: .list
        case .grid: .grid
        case .categoryList: .categoryList
        case .categoryGrid: .categoryGrid
        }
    }
}

extension BrowseItem.MediaType {
    var wire: DashportMedia.MediaType {
        switch self {
        case .folder: .folder
        case .music: .music
        case .album: .album
        case .artist: .artist
        case .playlist: .playlist
        case .podcast: .podcast
        case .podcastEpisode: .podcastEpisode
        case .audiobook: .audiobook
        case .radio: .radio
        case .genre: .genre
        case .other: .other
        }
    }
}

/// An ITEM_PAGE encoded once for a request's page and page size
/// (``MediaChannelService/encodedItemPage(_:page:pageSize:artworkKeys:)``).
public struct EncodedItemPage: Sendable, Hashable {
    public var page: Int
    public var pageSize: Int
    public var bytes: [UInt8]
}
