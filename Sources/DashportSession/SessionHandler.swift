public import DashportBrowse

/// A resolved "play this": the queue to play and where in it to start.
///
/// Built by the core from a media id or a search: the item's siblings (the playable leaves among
/// the children of its parent) with `startIndex` on the item, or, for an item that is browsable
/// too (an album, a playlist), its own playable leaves from the first. Queues hold tracks only.
public struct PlayRequest: Sendable, Hashable {
    /// The id the car asked for (or the search result chosen).
    public var mediaId: String
    public var queue: QueueState
    public var startIndex: Int

    public init(mediaId: String, queue: QueueState, startIndex: Int) {
        self.mediaId = mediaId
        self.queue = queue
        self.startIndex = startIndex
    }
}

extension BrowseItem {
    /// Playable and not a container: what a queue may hold.
    public var isPlayableLeaf: Bool { playable && !browsable }
}

/// Why a handler refused a command; the core answers `rejected(reason:)` with its description.
public enum SessionHandlerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The handler does not implement the command (every default does this).
    case notSupported(String)
    /// Nothing is queued and nothing could be found to play.
    case nothingToPlay
    /// There is no next item (the end of the queue, without repeat all).
    case endOfQueue
    /// The handler refused the argument.
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .notSupported(let command): "\(command) is not supported by this player"
        case .nothingToPlay: "there is nothing to play"
        case .endOfQueue: "already at the end of the queue"
        case .invalidArgument(let why): why
        }
    }
}

/// The one place every command from every car ends up (fan-in), and the browse trio the core
/// resolves "play this" through.
///
/// Every method has a default: transport commands throw ``SessionHandlerError/notSupported(_:)``,
/// `children` is empty, `item` and `parentId` are nil, search is not supported. A handler changes
/// what cars see only through the ``SessionBroadcaster`` it is handed (validated broadcasts).
///
/// The core serializes calls: one command (or timer action run through
/// ``SessionBroadcaster/exclusive(_:)``) at a time, so a handler may read the channels, compute and
/// broadcast without another command interleaving. Commands arrive already checked against the
/// declared capabilities, indices in range, rates valid and seeks clamped to 0…duration.
public protocol SessionHandler: BrowseProvider {
    /// The capabilities of the idle session, before the handler's first broadcast. Default:
    /// `play` and `playFromMediaId`, plus `playFromSearch` when ``supportsSearch``.
    var initialCapabilities: Set<SessionCapability> { get }
    /// Remote playback as declared before the handler's first ``SessionBroadcaster/setRemotePlayback(_:)``.
    /// Default nil (audio plays locally).
    var initialRemotePlayback: RemotePlayback? { get }

    func play(session: SessionBroadcaster) async throws
    func pause(session: SessionBroadcaster) async throws
    func stop(session: SessionBroadcaster) async throws
    func seekTo(_ positionMs: Int64, session: SessionBroadcaster) async throws
    func skipToNext(session: SessionBroadcaster) async throws
    func skipToPrevious(session: SessionBroadcaster) async throws
    func skipToQueueItem(_ index: Int, session: SessionBroadcaster) async throws
    func setRate(_ rate: Double, session: SessionBroadcaster) async throws
    func customAction(_ name: String, extras: [String: String], session: SessionBroadcaster) async throws
    func onSetRepeatMode(_ mode: RepeatMode, session: SessionBroadcaster) async throws
    func onSetShuffle(_ enabled: Bool, session: SessionBroadcaster) async throws
    /// Remote playback with `absolute` control: set the device to `volume` (0…1). A key press
    /// arrives here too, as the level one step from the last published one. Publish the level the
    /// device took with ``SessionBroadcaster/setRemotePlayback(_:)``.
    func onSetDeviceVolume(_ volume: Double, session: SessionBroadcaster) async throws
    /// Remote playback with `relative` control: step the device's volume (positive up, negative down).
    func onAdjustDeviceVolume(_ steps: Int, session: SessionBroadcaster) async throws
    /// Remote playback (absolute or relative): mute or unmute the device.
    func onSetDeviceMuted(_ muted: Bool, session: SessionBroadcaster) async throws

    /// The sound of what the session plays, for the cars' media audio sinks. Default nil: the
    /// handler makes no sound, and cars are sent status, metadata and keys only, as before.
    var audioSource: (any SessionAudioSource)? { get }
    /// Whether the handler's own audio paces its tracks now: its ``audioSource`` is attached, it
    /// moves on when a track's audio runs out and says so with ``SessionBroadcaster/trackEnded()``.
    /// While true an end-of-track sleep timer arms no clock deadline (its deadline is only an
    /// estimate for cars) and fires when the handler reports the end, so it pauses where the car's
    /// audio ends. Read by the core on every broadcast; must be cheap. Default false.
    var endsTracksWithAudio: Bool { get }
    /// The sleep timer will pause after the item `itemId` ends (an end-of-track timer was armed for
    /// it), or no longer (nil: cancelled, fired, or a duration timer). A handler whose audio paces it
    /// stops its audio at that item's end instead of starting the next one. Called by the core inside
    /// the command that changed the timer; must not block. Default: nothing.
    func sleepTimerPausesAfter(_ itemId: String?)

    /// The parent of `id`, when the handler knows it cheaply. Default nil: the core then walks the
    /// tree from the root (bounded by ``SessionConfiguration/browseVisitLimit``).
    func parentId(of id: String) async throws -> String?
    /// Start playing a resolved queue.
    func playFromMediaId(_ request: PlayRequest, session: SessionBroadcaster) async throws
    /// Start playing what a voice search resolved to. Default: ``playFromMediaId(_:session:)``.
    func playFromSearch(query: String, focus: SearchFocus?, request: PlayRequest, session: SessionBroadcaster) async throws
}

extension SessionHandler {
    public var initialCapabilities: Set<SessionCapability> {
        supportsSearch ? [.play, .playFromMediaId, .playFromSearch] : [.play, .playFromMediaId]
    }

    public func play(session: SessionBroadcaster) async throws { throw SessionHandlerError.notSupported("play") }
    public func pause(session: SessionBroadcaster) async throws { throw SessionHandlerError.notSupported("pause") }
    public func stop(session: SessionBroadcaster) async throws { throw SessionHandlerError.notSupported("stop") }
    public func seekTo(_ positionMs: Int64, session: SessionBroadcaster) async throws {
        throw SessionHandlerError.notSupported("seekTo")
    }
    public func skipToNext(session: SessionBroadcaster) async throws {
        throw SessionHandlerError.notSupported("skipToNext")
    }
    public func skipToPrevious(session: SessionBroadcaster) async throws {
        throw SessionHandlerError.notSupported("skipToPrevious")
    }
    public func skipToQueueItem(_ index: Int, session: SessionBroadcaster) async throws {
        throw SessionHandlerError.notSupported("skipToQueueItem")
    }
    public func setRate(_ rate: Double, session: SessionBroadcaster) async throws {
        throw SessionHandlerError.notSupported("setRate")
    }
    public func customAction(_ name: String, extras: [String: String], session: SessionBroadcaster) async throws {
        throw SessionHandlerError.notSupported("customAction")
    }
    public func onSetRepeatMode(_ mode: RepeatMode, session: SessionBroadcaster) async throws {
        throw SessionHandlerError.notSupported("setRepeatMode")
    }
    public func onSetShuffle(_ enabled: Bool, session: SessionBroadcaster) async throws {
        throw SessionHandlerError.notSupported("setShuffle")
    }
    public var initialRemotePlayback: RemotePlayback? { nil }
    public var audioSource: (any SessionAudioSource)? { nil }
    public var endsTracksWithAudio: Bool { false }
    public func sleepTimerPausesAfter(_ itemId: String?) {}
    public func onSetDeviceVolume(_ volume: Double, session: SessionBroadcaster) async throws {
        throw SessionHandlerError.notSupported("setDeviceVolume")
    }
    public func onAdjustDeviceVolume(_ steps: Int, session: SessionBroadcaster) async throws {
        throw SessionHandlerError.notSupported("adjustDeviceVolume")
    }
    public func onSetDeviceMuted(_ muted: Bool, session: SessionBroadcaster) async throws {
        throw SessionHandlerError.notSupported("setDeviceMuted")
    }

    public func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] { [] }
    public func item(id: String) async throws -> BrowseItem? { nil }
    public func parentId(of id: String) async throws -> String? { nil }
    public func playFromMediaId(_ request: PlayRequest, session: SessionBroadcaster) async throws {
        throw SessionHandlerError.notSupported("playFromMediaId")
    }
    public func playFromSearch(query: String, focus: SearchFocus?, request: PlayRequest, session: SessionBroadcaster) async throws {
        try await playFromMediaId(request, session: session)
    }
}

/// How a handler reads and changes the three channels (fan-out): every change is validated and
/// either applied whole and broadcast to every subscriber, or refused with a ``SessionStateError``
/// and nothing changes.
///
/// Broadcast from inside a handler call, or from a timer through ``exclusive(_:)``; a broadcast from
/// anywhere else waits its turn behind the command being handled.
public struct SessionBroadcaster: Sendable {
    let core: SessionCore

    init(core: SessionCore) {
        self.core = core
    }

    /// All three channels at once, as one consistent reading.
    public func snapshot() async -> SessionSnapshot { await core.snapshot }

    public var playbackState: PlaybackState { get async { await core.playbackState } }
    public var mediaItem: MediaItemState { get async { await core.mediaItem } }
    public var queue: QueueState { get async { await core.queue } }
    /// Remote playback as last declared (nil: local).
    public var remotePlayback: RemotePlayback? { get async { await core.remotePlayback } }

    /// Changes any of the three channels in one step, validated together (so a new queue and the
    /// index into it arrive as one change).
    ///
    /// - `mediaItem` nil keeps the item, unless the queue index moved to an entry with another id:
    ///   then the entry becomes the item. A given item is merged over the entry at the queue index
    ///   field by field when the ids match; when they differ the entry wins and `metadataMismatch`
    ///   is reported.
    /// - `playbackState` equal to the current one but for an anchor on its projection is not a
    ///   discontinuity and is not broadcast.
    public func update(
        queue: QueueState? = nil, mediaItem: MediaItemState? = nil, playbackState: PlaybackState? = nil
    ) async throws(SessionStateError) {
        try await core.broadcast(queue: queue, mediaItem: mediaItem, playbackState: playbackState)
    }

    public func setPlaybackState(_ state: PlaybackState) async throws(SessionStateError) {
        try await update(playbackState: state)
    }

    public func setMediaItem(_ item: MediaItemState) async throws(SessionStateError) {
        try await update(mediaItem: item)
    }

    public func setQueue(_ queue: QueueState) async throws(SessionStateError) {
        try await update(queue: queue)
    }

    /// Declares (or changes, or with nil withdraws) remote playback: the volume the device now
    /// has, whether it is muted, its steps and how it can be driven. Pushed to every car; never
    /// persisted. Refused when the volume is outside 0…1 or steps is below 1.
    public func setRemotePlayback(_ remote: RemotePlayback?) async throws(SessionStateError) {
        try await core.declareRemotePlayback(remote)
    }

    /// The current item's audio ran out and the handler moved on (or stopped at the end of the
    /// queue): an end-of-track sleep timer falls due and fires before the running command (or
    /// ``exclusive(_:)`` body) finishes. For handlers whose ``SessionHandler/endsTracksWithAudio``.
    public func trackEnded() async {
        await core.audioTrackEnded()
    }

    /// Reports a session error to every subscriber (and the log).
    public func report(_ error: SessionError) async {
        await core.report(error)
    }

    /// Runs `body` as if it were a command: no command interleaves with it. For handler work that
    /// starts from a timer (a track ending). Errors from `body` are rethrown.
    public func exclusive(_ body: @escaping @Sendable (SessionBroadcaster) async throws -> Void) async throws {
        try await core.runExclusive(body)
    }
}
