import DashportClock
import DashportBrowse
import DashportMessages
import DashportSession
import Testing
@testable import DashportServices

// Shared helpers for the AAP service tests: message ids, decoding what a service sent, and a
// small library for the tests that drive a real SessionCore.

let statusId: UInt16 = 0x8001
let playbackInputId: UInt16 = 0x8002
let metadataId: UInt16 = 0x8003
let inputReportId: UInt16 = 0x8001
let keyBindingRequestId: UInt16 = 0x8002
let keyBindingResponseId: UInt16 = 0x8003

/// Milliseconds of link time (the tests keep the session clock's origin at link time zero).
func ms(_ value: Int64) -> Duration { .milliseconds(value) }

extension AAPPlaybackStatusService.Action {
    var outgoing: OutgoingMessage? {
        if case .send(let message) = self { message } else { nil }
    }
    var logEntry: AAPServiceLog? {
        if case .log(let entry) = self { entry } else { nil }
    }
    var isCommand: Bool {
        if case .command = self { true } else { false }
    }
}

extension AAPInputService.Action {
    var outgoing: OutgoingMessage? {
        if case .send(let message) = self { message } else { nil }
    }
    var logEntry: AAPServiceLog? {
        if case .log(let entry) = self { entry } else { nil }
    }
    var command: SessionCommand? {
        if case .command(let command, _) = self { command } else { nil }
    }
}

/// Every MEDIA_PLAYBACK_STATUS among `actions`, decoded; each must be on `channel`.
func statuses(in actions: [AAPPlaybackStatusService.Action], channel: UInt8) throws -> [AAP.MediaPlaybackStatus] {
    try actions.compactMap(\.outgoing).filter { $0.messageId == statusId }.map { message in
        #expect(message.channel == channel)
        return try AAP.MediaPlaybackStatus(serializedBytes: message.body)
    }
}

/// Every MEDIA_PLAYBACK_METADATA among `actions`, decoded; each must be on `channel`.
func metadata(in actions: [AAPPlaybackStatusService.Action], channel: UInt8) throws -> [AAP.MediaPlaybackMetadata] {
    try actions.compactMap(\.outgoing).filter { $0.messageId == metadataId }.map { message in
        #expect(message.channel == channel)
        return try AAP.MediaPlaybackMetadata(serializedBytes: message.body)
    }
}

/// Every artwork fetch among `actions`.
func fetches(in actions: [AAPPlaybackStatusService.Action]) -> [(uri: String, width: Int, height: Int, itemId: String)] {
    actions.compactMap {
        if case .fetchArtwork(let uri, let width, let height, let itemId) = $0 { (uri, width, height, itemId) } else { nil }
    }
}

/// The status a car should get, every field explicit.
func expectedStatus(
    _ state: AAP.MediaPlaybackStatus.State, seconds: UInt32, source: String = "Dashport",
    shuffle: Bool = false, repeatAll: Bool = false, repeatOne: Bool = false
) -> AAP.MediaPlaybackStatus {
    AAP.MediaPlaybackStatus(
        state: state, mediaSource: source, playbackSeconds: seconds, shuffle: shuffle, repeat: repeatAll,
        repeatOne: repeatOne)
}

/// A playback state at `valueMs` anchored at session instant `atMs`.
func playbackState(
    _ status: PlaybackStatus, valueMs: Int64 = 0, atMs: Int64 = 0, rate: Double = 1,
    repeatMode: RepeatMode = .none, shuffle: Bool = false
) -> PlaybackState {
    PlaybackState(
        status: status, position: PositionAnchor(valueMs: valueMs, at: ClockInstant(milliseconds: atMs), rate: rate),
        capabilities: [.play, .pause], repeatMode: repeatMode, shuffle: shuffle)
}

func song(_ id: String, seconds: Int64? = 200, art: String? = nil) -> MediaItem {
    MediaItem(
        id: id, title: "Title \(id)", subtitle: "Subtitle \(id)", artist: "Artist \(id)", album: "Album \(id)",
        artworkUri: art, durationMs: seconds.map { $0 * 1000 })
}

func snapshot(_ state: PlaybackState, item: MediaItem?) -> SessionSnapshot {
    SessionSnapshot(
        playbackState: state, mediaItem: MediaItemState(item: item),
        queue: QueueState(items: item.map { [$0] } ?? []))
}

/// A status service already started on `snapshot` at `now`, with what `start` returned.
func startedService(
    _ snapshot: SessionSnapshot, now: Duration = .zero, channel: UInt8 = 13,
    configuration: AAPPlaybackStatusService.Configuration = .init()
) -> (AAPPlaybackStatusService, [AAPPlaybackStatusService.Action]) {
    var service = AAPPlaybackStatusService(channel: channel, car: "car-1", configuration: configuration)
    let actions = service.start(snapshot: snapshot, now: now)
    return (service, actions)
}

/// An INPUT_REPORT body with these keys.
func keyReport(_ keys: [AAP.KeyEvent.Key]) -> [UInt8] {
    AAP.InputReport(timestamp: 1_000, keyEvent: AAP.KeyEvent(keys: keys)).serializedBytes()
}

func key(_ code: UInt32, down: Bool, longpress: Bool? = false) -> AAP.KeyEvent.Key {
    AAP.KeyEvent.Key(keycode: code, down: down, metastate: 0, longpress: longpress)
}

/// One album of three tracks (the second without a cover) under one tab.
struct AAPTestLibrary: BrowseProvider {
    static let tracks = [
        BrowseItem(
            id: "t1", title: "One", artworkUri: "https://covers/one", playable: true, artist: "Band", album: "LP", durationMs: 100_000),
        BrowseItem(id: "t2", title: "Two", playable: true, artist: "Band", album: "LP", durationMs: 200_000),
        BrowseItem(
            id: "t3", title: "Three", artworkUri: "https://covers/one", playable: true, artist: "Band", album: "LP", durationMs: 300_000),
    ]

    func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        guard page == 0 else { return [] }
        switch parentId {
        case BrowseItem.rootId: return [BrowseItem(id: "tab", title: "Tab", browsable: true)]
        case "tab": return [BrowseItem(id: "lp", title: "LP", browsable: true, playable: true, mediaType: .album)]
        case "lp": return Self.tracks
        default: return []
        }
    }

    func item(id: String) async throws -> BrowseItem? {
        Self.tracks.first { $0.id == id }
    }
}

/// Reads a SessionCore subscription up to a marker error, so a test knows it has every update a
/// command broadcast (the core emits synchronously, in order).
final class UpdateReader {
    private var iterator: AsyncStream<SessionUpdate>.AsyncIterator
    private let core: SessionCore
    private var markers = 0

    init(core: SessionCore) async {
        self.core = core
        self.iterator = await core.subscribe().makeAsyncIterator()
    }

    /// Every update since the last call.
    func drain() async -> [SessionUpdate] {
        markers += 1
        let marker = "marker \(markers)"
        await core.report(SessionError(code: .handlerFailed, severity: .degraded, message: marker))
        var updates: [SessionUpdate] = []
        while let update = await iterator.next() {
            if case .error(let error) = update, error.message == marker { break }
            updates.append(update)
        }
        return updates
    }
}
