import DashportTestSupport
import DashportClock
import DashportBrowse
import Foundation
@testable import DashportSession

/// A small in-memory browse tree.
///
/// ```
/// root ─ tab-albums ─ album-a ─ a1 (100 s), a2 (200 s), a-notes (browsable only), a3 (300 s)
///      │            └ album-b ─ b1 (60 s)
///      ├ tab-playlists ─ pl-1 (browsable + playable) ─ a2, b1
///      ├ tab-radio ─ r1 (playable, no duration)
///      └ loose (playable, not a tab)
/// ```
struct TestLibrary: BrowseProvider {
    var tree: [String: [BrowseItem]]
    var searchable = false

    static func track(_ id: String, seconds: Int64?, title: String? = nil) -> BrowseItem {
        BrowseItem(
            id: id, title: title ?? id.uppercased(), playable: true, mediaType: .music, artist: "Artist \(id)",
            durationMs: seconds.map { $0 * 1000 })
    }

    static let standard = TestLibrary(tree: [
        BrowseItem.rootId: [
            BrowseItem(id: "tab-albums", title: "Albums", browsable: true),
            BrowseItem(id: "tab-playlists", title: "Playlists", browsable: true),
            BrowseItem(id: "tab-radio", title: "Radio", browsable: true),
            track("loose", seconds: 10),
        ],
        "tab-albums": [
            BrowseItem(id: "album-a", title: "Album A", browsable: true, mediaType: .album),
            BrowseItem(id: "album-b", title: "Album B", browsable: true, mediaType: .album),
        ],
        "album-a": [
            track("a1", seconds: 100), track("a2", seconds: 200),
            BrowseItem(id: "a-notes", title: "Liner notes", browsable: true), track("a3", seconds: 300),
        ],
        "album-b": [track("b1", seconds: 60)],
        "tab-playlists": [
            BrowseItem(id: "pl-1", title: "Playlist 1", browsable: true, playable: true, mediaType: .playlist)
        ],
        "pl-1": [track("a2", seconds: 200), track("b1", seconds: 60)],
        "tab-radio": [track("r1", seconds: nil)],
    ])

    func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        let all = tree[parentId] ?? []
        let start = min(all.count, page * pageSize)
        return Array(all[start..<min(all.count, start + pageSize)])
    }

    func item(id: String) async throws -> BrowseItem? {
        if id == BrowseItem.rootId { return BrowseItem(id: id, title: "Root", browsable: true) }
        return tree.values.lazy.flatMap { $0 }.first { $0.id == id }
    }

    var supportsSearch: Bool { searchable }

    func search(query: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        guard searchable else { throw BrowseError(code: .notSupported, message: "no search") }
        var seen: Set<String> = []
        let hits = tree.keys.sorted().flatMap { tree[$0] ?? [] }.filter {
            $0.title.localizedCaseInsensitiveContains(query) && seen.insert($0.id).inserted
        }
        return Array(hits.prefix(pageSize))
    }
}

/// A handler that records what reaches it and changes nothing; its browse trio is a library.
actor RecordingHandler: SessionHandler {
    nonisolated let library: TestLibrary
    nonisolated let declared: Set<SessionCapability>
    private(set) var calls: [String] = []

    init(capabilities: Set<SessionCapability> = Set(SessionCapability.allCases), library: TestLibrary = .standard) {
        self.declared = capabilities
        self.library = library
    }

    nonisolated var initialCapabilities: Set<SessionCapability> { declared }
    nonisolated var supportsSearch: Bool { library.searchable }

    nonisolated func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        try await library.children(of: parentId, page: page, pageSize: pageSize)
    }
    nonisolated func item(id: String) async throws -> BrowseItem? { try await library.item(id: id) }
    nonisolated func search(query: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        try await library.search(query: query, page: page, pageSize: pageSize)
    }

    private func record(_ call: String) { calls.append(call) }

    func play(session: SessionBroadcaster) async throws { record("play") }
    func pause(session: SessionBroadcaster) async throws { record("pause") }
    func stop(session: SessionBroadcaster) async throws { record("stop") }
    func seekTo(_ positionMs: Int64, session: SessionBroadcaster) async throws { record("seekTo(\(positionMs))") }
    func skipToNext(session: SessionBroadcaster) async throws { record("skipToNext") }
    func skipToPrevious(session: SessionBroadcaster) async throws { record("skipToPrevious") }
    func skipToQueueItem(_ index: Int, session: SessionBroadcaster) async throws { record("skipToQueueItem(\(index))") }
    func setRate(_ rate: Double, session: SessionBroadcaster) async throws { record("setRate(\(rate))") }
    func customAction(_ name: String, extras: [String: String], session: SessionBroadcaster) async throws {
        record("customAction(\(name),\(extras.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ";")))")
    }
    func onSetRepeatMode(_ mode: RepeatMode, session: SessionBroadcaster) async throws { record("repeat(\(mode))") }
    func onSetShuffle(_ enabled: Bool, session: SessionBroadcaster) async throws { record("shuffle(\(enabled))") }
    func playFromMediaId(_ request: PlayRequest, session: SessionBroadcaster) async throws {
        record("playFromMediaId(\(request.mediaId),\(request.queue.items.map(\.id).joined(separator: ",")),\(request.startIndex))")
    }
    func playFromSearch(query: String, focus: SearchFocus?, request: PlayRequest, session: SessionBroadcaster) async throws {
        record(
            "playFromSearch(\(query),\(focus?.rawValue ?? "-"),\(request.mediaId),\(request.queue.items.map(\.id).joined(separator: ",")),\(request.startIndex))"
        )
    }
}

/// A handler that implements nothing: every default.
struct DefaultsHandler: SessionHandler {}

/// Configuration for tests: a buffer large enough that no update is ever dropped.
let testConfiguration = SessionConfiguration(subscriberBufferLimit: 10_000)

/// A core playing the standard library with the demo handler.
func makeDemoCore(
    clock: ManualClock, store: SessionStore? = nil, configuration: SessionConfiguration = testConfiguration,
    library: TestLibrary = .standard, seed: UInt64 = 42
) -> SessionCore {
    SessionCore(
        handler: DemoPlaybackHandler(library: library, clock: clock, shuffleSeed: seed),
        clock: clock, persistence: store, configuration: configuration)
}

/// Every update the stream delivers until the core is closed.
func drain(_ stream: AsyncStream<SessionUpdate>) async -> [SessionUpdate] {
    var updates: [SessionUpdate] = []
    for await update in stream { updates.append(update) }
    return updates
}

/// The first `count` updates of a stream (the core must have delivered them already).
func first(_ count: Int, of stream: AsyncStream<SessionUpdate>) async -> [SessionUpdate] {
    var updates: [SessionUpdate] = []
    var iterator = stream.makeAsyncIterator()
    while updates.count < count, let update = await iterator.next() { updates.append(update) }
    return updates
}

extension SessionUpdate {
    var playbackState: PlaybackState? {
        if case .playbackState(let state) = self { return state }
        return nil
    }
    var error: SessionError? {
        if case .error(let error) = self { return error }
        return nil
    }
}

extension CommandResult {
    var isAccepted: Bool { self == .accepted }
    var reason: String? {
        if case .rejected(let reason) = self { return reason }
        return nil
    }
}

/// A queue of `ids` with 100 s items titled by their id.
func queue(_ ids: [String]) -> QueueState {
    QueueState(items: ids.map { MediaItem(id: $0, title: $0.uppercased(), artist: "Artist \($0)", durationMs: 100_000) })
}
