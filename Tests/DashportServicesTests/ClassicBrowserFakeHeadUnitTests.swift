// Tests/DashportServicesTests/ClassicBrowserFakeHeadUnitTests.swift - a fake classic-browser head unit, a
// driver loop over a real BrowseCore, and the small library the classic browser tests browse.

import DashportBrowse
import DashportMessages
import DashportSession
import Foundation
import Testing
@testable import DashportServices

typealias ClassicAction = ClassicBrowserService.Action

/// A node the service sent, decoded with the generated types as a head unit would.
enum ClassicNode: Equatable {
    case root(AAP.MediaRootNode)
    case source(AAP.MediaSourceNode)
    case list(AAP.MediaListNode)
    case song(AAP.MediaSongNode)

    init(_ message: OutgoingMessage) throws {
        switch AAP.MediaBrowserMessageId(rawValue: Int32(message.messageId)) {
        case .rootNode: self = .root(try AAP.MediaRootNode(serializedBytes: message.body))
        case .sourceNode: self = .source(try AAP.MediaSourceNode(serializedBytes: message.body))
        case .listNode: self = .list(try AAP.MediaListNode(serializedBytes: message.body))
        case .songNode: self = .song(try AAP.MediaSongNode(serializedBytes: message.body))
        default: throw ClassicHarnessError.notANode(message.messageId)
        }
    }

    var root: AAP.MediaRootNode? { if case .root(let node) = self { node } else { nil } }
    var source: AAP.MediaSourceNode? { if case .source(let node) = self { node } else { nil } }
    var list: AAP.MediaListNode? { if case .list(let node) = self { node } else { nil } }
    var song: AAP.MediaSongNode? { if case .song(let node) = self { node } else { nil } }
}

enum ClassicHarnessError: Error {
    case notANode(UInt16)
}

/// How the fake artwork pipeline answers a cover request.
enum ClassicArtReply: Sendable {
    case bytes([UInt8])
    case fail
    /// Never answered (until the test answers the held ticket itself).
    case hold
}

/// Ids that need encoding in a path (the `odd` tab of ``ClassicLibrary/standard`` has one song each).
let classicOddIds = ["a/b", "x:y", "ünïcødé 🎵", "%41 sp ace", "/song/t-1", "tab\tand\0nul", "__root__", "plain-ID_1.2~"]

/// The cover bytes the fake artwork pipeline serves for `uri`: recognisable in a node.
func classicArt(_ uri: String) -> [UInt8] { Array("art:\(uri)".utf8) }

/// A head unit on the classic browser channel, with the connection driver's loop behind the
/// service: browse and item requests go to a real ``BrowseCore``, covers to a fake pipeline.
struct ClassicFakeHeadUnit {
    static let channel: UInt8 = 15
    static let source = CommandSource.aapPlaybackInput(car: "test-hu")

    var service: ClassicBrowserService
    let core: BrowseCore
    var artwork: @Sendable (String) -> ClassicArtReply = { .bytes(classicArt($0)) }
    var now: Duration = .zero
    /// Every action the service returned, in order.
    var actions: [ClassicAction] = []
    /// Cover requests the fake pipeline holds back.
    var held: [(ticket: ClassicBrowserService.Ticket, uri: String)] = []

    init(provider: any BrowseProvider, configuration: ClassicBrowserService.Configuration = .init()) {
        service = ClassicBrowserService(channel: Self.channel, car: "test-hu", configuration: configuration)
        // Budgets no test reaches: every provider here answers at once.
        core = BrowseCore(
            provider: provider,
            configuration: BrowseConfiguration(answerBudget: .seconds(3600), providerTimeout: .seconds(3600)))
    }

    /// The URIs of every cover the service asked for.
    var fetchedArt: [String] {
        actions.compactMap { if case .fetchArtwork(_, let uri, _, _) = $0 { uri } else { nil } }
    }

    /// Every problem the service reported.
    var problems: [ClassicBrowserService.Problem] {
        actions.compactMap { if case .problem(let problem) = $0 { problem } else { nil } }
    }

    /// Sends MEDIA_GET_NODE and returns the nodes the service sent once the driver ran every request.
    mutating func get(_ path: String, start: Int32? = nil, art: Bool? = nil) async throws -> [ClassicNode] {
        let body = AAP.MediaGetNode(path: path, start: start, getAlbumArt: art).serializedBytes()
        return try await send(AAP.MediaBrowserMessageId.getNode, body)
    }

    /// The one node a MEDIA_GET_NODE is answered with.
    mutating func node(_ path: String, start: Int32? = nil, art: Bool? = nil) async throws -> ClassicNode {
        let nodes = try await get(path, start: start, art: art)
        try #require(nodes.count == 1)
        return nodes[0]
    }

    mutating func send(_ id: AAP.MediaBrowserMessageId, _ body: [UInt8]) async throws -> [ClassicNode] {
        try await run(service.receive(messageId: UInt16(id.rawValue), body: body, now: now))
    }

    /// Moves the clock to `time` and ticks.
    mutating func advance(to time: Duration) async throws -> [ClassicNode] {
        now = time
        return try await run(service.tick(now: now))
    }

    /// Performs `actions` as the connection driver would, and what they lead to, until none is left.
    mutating func run(_ initial: [ClassicAction]) async throws -> [ClassicNode] {
        var queue = initial
        var nodes: [ClassicNode] = []
        while !queue.isEmpty {
            let action = queue.removeFirst()
            actions.append(action)
            switch action {
            case .send(let message):
                #expect(message.channel == Self.channel)
                nodes.append(try ClassicNode(message))
            case .browse(let ticket, let parentId, let page, let pageSize, let car):
                let answer = await core.children(of: parentId, page: page, pageSize: pageSize, for: car)
                queue += service.browseAnswered(ticket, answer, now: now)
            case .fetchItem(let ticket, let itemId, let car):
                let item = await core.item(id: itemId, for: car)
                queue += service.itemAnswered(ticket, item, now: now)
            case .fetchArtwork(let ticket, let uri, _, _):
                switch artwork(uri) {
                case .bytes(let bytes): queue += service.artworkAnswered(ticket, bytes, now: now)
                case .fail: queue += service.artworkAnswered(ticket, nil, now: now)
                case .hold: held.append((ticket, uri))
                }
            case .command, .problem:
                break
            }
        }
        return nodes
    }
}

/// A browse provider over fixed lists, for the classic browser tests.
struct ClassicLibrary: BrowseProvider {
    let lists: [String: [BrowseItem]]
    let items: [String: BrowseItem]
    /// Parents whose browse fails with this screen.
    var failing: [String: BrowseError] = [:]

    init(_ lists: [String: [BrowseItem]], failing: [String: BrowseError] = [:]) {
        self.lists = lists
        self.failing = failing
        var items: [String: BrowseItem] = [:]
        for list in lists.values { for item in list { items[item.id] = item } }
        self.items = items
    }

    func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        if let error = failing[parentId] { throw error }
        let list = lists[parentId] ?? []
        let start = min(list.count, page * pageSize)
        return Array(list[start..<min(list.count, start + pageSize)])
    }

    func item(id: String) async throws -> BrowseItem? { items[id] }

    /// Tabs `music` (an album, an artist, a lone track, a station), `big` (120 albums without
    /// covers) and `odd` (songs whose ids need encoding), with an album of three tracks.
    static let standard: ClassicLibrary = {
        let album = BrowseItem(
            id: "album-a", title: "Album A", subtitle: "Band", artworkUri: "https://art/a", browsable: true, playable: true,
            mediaType: .album, artist: "Band")
        let tracks = (1...3).map { index in
            BrowseItem(
                id: "t-\(index)", title: "Track \(index)", artworkUri: "https://art/a", playable: true, mediaType: .music,
                artist: "Band", album: "Album A", durationMs: Int64(200_000 + index * 25_500))
        }
        let artist = BrowseItem(id: "artist-x", title: "Artist X", browsable: true, mediaType: .artist)
        let solo = BrowseItem(
            id: "track-solo", title: "Solo", subtitle: "Busker", artworkUri: "https://art/solo", playable: true,
            mediaType: .music, durationMs: 61_900)
        let station = BrowseItem(
            id: "radio-1", title: "Coast FM", artworkUri: "https://art/a", playable: true, mediaType: .radio)
        let folder = BrowseItem(id: "sub", title: "Rarities", browsable: true, mediaType: .folder)
        let big = (0..<120).map { index in
            BrowseItem(
                id: String(format: "album-%03d", index), title: "Album \(index)", browsable: true, playable: true,
                mediaType: .album)
        }
        let odd = classicOddIds.map { id in
            BrowseItem(id: id, title: "Odd \(id)", playable: true, mediaType: .music)
        }
        return ClassicLibrary([
            BrowseItem.rootId: [
                BrowseItem(id: "music", title: "Music", artworkUri: "https://art/tab", browsable: true, mediaType: .folder),
                BrowseItem(id: "big", title: "Big", browsable: true),
                BrowseItem(id: "odd", title: "Odd", browsable: true),
            ],
            "music": [album, artist, solo, station],
            "album-a": tracks,
            "artist-x": [album, folder],
            "sub": [solo],
            "big": big,
            "odd": odd,
        ])
    }()
}

enum ClassicFixtures {
    /// Fixtures/demo/catalog.json, from this file's path.
    static let demoCatalog =
        URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        + "/Fixtures/demo/catalog.json"
}
