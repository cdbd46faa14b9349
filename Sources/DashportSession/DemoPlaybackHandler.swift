public import DashportClock
public import DashportBrowse
import DashportRandom

/// The embedded default handler: plays a browse library, as tones on the cars' audio sinks once the
/// server attached its ``player``, else "on the clock" with no audio.
///
/// Position advances at the playback rate while playing (on the clock, or as the frames the server
/// pulled: see ``DemoTonePlayer``); play, pause, stop, seek, next, previous, skip to queue item,
/// rate, repeat and shuffle change the state for real; when a track's time is up the queue advances
/// (repeat one replays it, repeat all wraps, otherwise playback stops at the end of the last item).
/// All state lives in the session's channels; the handler keeps only its track-end timer (on the
/// clock), the shuffle order, its favourites and the player. Browse requests go straight to the
/// library.
///
/// It declares one custom action, ``favouriteAction`` ("Favourite" / "Unfavourite" the current
/// item), so a car can show a custom button and see both outcomes (an undeclared name is refused
/// by the core). Given a `remoteVolume` control it plays "on a remote speaker": it declares remote
/// playback (volume 0.5, 20 steps) and the speaker takes every volume and mute command at once.
public actor DemoPlaybackHandler: SessionHandler {
    public nonisolated let library: any BrowseProvider
    nonisolated let clock: any DashportClock
    /// Previous restarts the current item instead when it has played longer than this. Default 3 s.
    public nonisolated let previousRestartsAfterMs: Int64

    private var generator: SplitMix64
    private var shuffleOrder: [Int] = []
    private var trackEnd: ClockTimer?
    private var trackEndGeneration: UInt64 = 0
    private var favourites: Set<String> = []
    /// How the simulated remote speaker's volume is driven; nil: local playback.
    public nonisolated let remoteVolume: RemotePlayback.Control?
    /// The sound of the library, the ``audioSource``: once attached it paces the tracks.
    public nonisolated let player = DemoTonePlayer()
    /// The session of the last command, for the audio's track changes (which arrive from the player).
    var lastSession: SessionBroadcaster?
    /// The player's ``DemoToneDeck/epoch`` the channels last showed.
    var syncedEpoch: UInt64 = 0

    /// The custom action's name (what a car sends back).
    public static let favouriteAction = "favourite"

    /// - Parameter shuffleSeed: seeds the shuffle order (tests pass a fixed one).
    public init(
        library: any BrowseProvider,
        clock: any DashportClock,
        shuffleSeed: UInt64 = UInt64.random(in: .min ... .max),
        previousRestartsAfterMs: Int64 = 3000,
        remoteVolume: RemotePlayback.Control? = nil
    ) {
        self.remoteVolume = remoteVolume
        self.library = library
        self.clock = clock
        self.generator = SplitMix64(seed: shuffleSeed)
        self.previousRestartsAfterMs = previousRestartsAfterMs
        player.listen { [weak self] event in
            Task { await self?.audioEvent(event) }
        }
    }

    // MARK: Browse trio, from the library

    public nonisolated var supportsSearch: Bool { library.supportsSearch }

    public nonisolated var initialCapabilities: Set<SessionCapability> {
        var capabilities: Set<SessionCapability> = [
            .play, .pause, .stop, .seekTo, .jumpForward, .jumpBack, .skipToNext, .skipToPrevious,
            .skipToQueueItem, .setRate, .setRepeatMode, .setShuffle, .playFromMediaId, .customAction,
        ]
        if supportsSearch { capabilities.insert(.playFromSearch) }
        return capabilities
    }

    public nonisolated var initialRemotePlayback: RemotePlayback? {
        remoteVolume.map { RemotePlayback(volume: 0.5, muted: false, steps: 20, control: $0) }
    }

    public nonisolated func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        try await library.children(of: parentId, page: page, pageSize: pageSize)
    }

    public nonisolated func item(id: String) async throws -> BrowseItem? {
        try await library.item(id: id)
    }

    public nonisolated func search(query: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        try await library.search(query: query, page: page, pageSize: pageSize)
    }

    // MARK: Commands

    public func playFromMediaId(_ request: PlayRequest, session: SessionBroadcaster) async throws {
        var snapshot = try await current(session)
        snapshot.queue = request.queue
        if snapshot.playbackState.shuffle { reshuffle(count: request.queue.items.count, first: request.startIndex) }
        try await start(request.startIndex, in: snapshot, status: .playing, queueChanged: true, session: session)
    }

    public func play(session: SessionBroadcaster) async throws {
        var snapshot = try await current(session)
        if snapshot.currentEntry == nil, snapshot.mediaItem.item == nil {
            guard let first = navigator(for: snapshot).next(after: nil, wrap: false) else {
                throw SessionHandlerError.nothingToPlay
            }
            return try await start(first, in: snapshot, status: .playing, session: session)
        }
        let now = clock.now
        let projected = snapshot.playbackState.projectedPositionMs(at: now, durationMs: snapshot.durationMs)
        let restarts = snapshot.durationMs.map { projected >= $0 } ?? false  // played to the end: from the start
        let position = restarts ? 0 : projected
        snapshot.playbackState.status = .playing
        snapshot.playbackState.position = PositionAnchor(valueMs: position, at: now, rate: snapshot.playbackState.position.rate)
        try await commit(snapshot, audioStart: restarts ? position : nil, session: session)
    }

    public func pause(session: SessionBroadcaster) async throws {
        var snapshot = try await current(session)
        snapshot.playbackState = snapshot.playbackState.reanchored(at: clock.now, durationMs: snapshot.durationMs)
        snapshot.playbackState.status = .paused
        try await commit(snapshot, session: session)
    }

    public func stop(session: SessionBroadcaster) async throws {
        var snapshot = try await current(session)
        snapshot.playbackState.status = .stopped
        snapshot.playbackState.position = PositionAnchor(valueMs: 0, at: clock.now, rate: snapshot.playbackState.position.rate)
        try await commit(snapshot, audioStart: 0, session: session)
    }

    public func seekTo(_ positionMs: Int64, session: SessionBroadcaster) async throws {
        var snapshot = try await current(session)
        snapshot.playbackState.position = PositionAnchor(valueMs: positionMs, at: clock.now, rate: snapshot.playbackState.position.rate)
        try await commit(snapshot, audioStart: positionMs, session: session)
    }

    public func setRate(_ rate: Double, session: SessionBroadcaster) async throws {
        var snapshot = try await current(session)
        snapshot.playbackState = snapshot.playbackState.reanchored(at: clock.now, durationMs: snapshot.durationMs)
        snapshot.playbackState.position.rate = rate
        try await commit(snapshot, session: session)
    }

    public func skipToNext(session: SessionBroadcaster) async throws {
        let snapshot = try await current(session)
        let state = snapshot.playbackState
        guard let next = navigator(for: snapshot).next(after: state.queueIndex, wrap: state.repeatMode == .all) else {
            throw SessionHandlerError.endOfQueue
        }
        try await start(next, in: snapshot, status: Self.keptStatus(state.status), session: session)
    }

    public func skipToPrevious(session: SessionBroadcaster) async throws {
        let snapshot = try await current(session)
        let state = snapshot.playbackState
        let played = state.projectedPositionMs(at: clock.now, durationMs: snapshot.durationMs)
        let previous = navigator(for: snapshot).previous(before: state.queueIndex, wrap: state.repeatMode == .all)
        guard played <= previousRestartsAfterMs, let previous else {
            return try await seekTo(0, session: session)
        }
        try await start(previous, in: snapshot, status: Self.keptStatus(state.status), session: session)
    }

    public func skipToQueueItem(_ index: Int, session: SessionBroadcaster) async throws {
        let snapshot = try await current(session)
        try await start(index, in: snapshot, status: Self.keptStatus(snapshot.playbackState.status), session: session)
    }

    public func onSetRepeatMode(_ mode: RepeatMode, session: SessionBroadcaster) async throws {
        var snapshot = try await current(session)
        snapshot.playbackState.repeatMode = mode
        try await commit(snapshot, session: session)
    }

    public func onSetShuffle(_ enabled: Bool, session: SessionBroadcaster) async throws {
        var snapshot = try await current(session)
        snapshot.playbackState.shuffle = enabled
        if enabled { reshuffle(count: snapshot.queue.items.count, first: snapshot.playbackState.queueIndex) }
        try await commit(snapshot, session: session)
    }

    /// ``favouriteAction`` toggles the current item's favourite mark (shown in the button's label).
    public func customAction(_ name: String, extras: [String: String], session: SessionBroadcaster) async throws {
        guard name == Self.favouriteAction else { throw SessionHandlerError.notSupported("custom action '\(name)'") }
        let snapshot = try await current(session)
        guard let id = snapshot.mediaItem.item?.id else { throw SessionHandlerError.invalidArgument("nothing is playing to favourite") }
        if favourites.remove(id) == nil { favourites.insert(id) }
        try await commit(snapshot, session: session)
    }

    // MARK: Track end

    /// The track's time is up: the next item per the repeat mode, or stopped at the end.
    private func trackEnded(_ generation: UInt64, session: SessionBroadcaster) async throws {
        guard generation == trackEndGeneration, !player.isAttached else { return }
        var snapshot = await session.snapshot()
        let state = snapshot.playbackState
        guard state.status == .playing else { return }
        if let next = navigator(for: snapshot).afterTrackEnd(state.queueIndex, repeatMode: state.repeatMode) {
            return try await start(next, in: snapshot, status: .playing, session: session)
        }
        let now = clock.now
        snapshot.playbackState.status = .stopped
        snapshot.playbackState.position = PositionAnchor(
            valueMs: state.projectedPositionMs(at: now, durationMs: snapshot.durationMs), at: now, rate: state.position.rate)
        try await commit(snapshot, session: session)
    }

    /// Arms the timer for the end of the current item when it plays and has a duration.
    func armTrackEnd(session: SessionBroadcaster) async {
        trackEnd?.cancel()
        trackEnd = nil
        trackEndGeneration += 1
        guard !player.isAttached else { return }  // the audio ends tracks
        let generation = trackEndGeneration
        let snapshot = await session.snapshot()
        let state = snapshot.playbackState
        let rate = state.position.rate
        guard state.status == .playing, let duration = snapshot.durationMs, rate > 0 else { return }
        let now = clock.now
        let remaining = max(0, duration - state.projectedPositionMs(at: now, durationMs: duration))
        let deadline = now.advanced(byMs: saturatingInt64((Double(remaining) / rate).rounded(.up)))
        trackEnd = clock.schedule(at: deadline) { [weak self] in
            guard let self else { return }
            do {
                try await session.exclusive { session in try await self.trackEnded(generation, session: session) }
            } catch {
                await session.report(
                    SessionError(
                        code: .handlerFailed, severity: .degraded, message: "the demo player could not advance: \(error)"))
            }
        }
    }

    // MARK: Helpers

    /// Starts the entry at `index` from 0 with `status`.
    private func start(
        _ index: Int, in snapshot: SessionSnapshot, status: PlaybackStatus, queueChanged: Bool = false,
        session: SessionBroadcaster
    ) async throws {
        var snapshot = snapshot
        snapshot.playbackState.queueIndex = index
        snapshot.playbackState.status = status
        snapshot.playbackState.position = PositionAnchor(valueMs: 0, at: clock.now, rate: snapshot.playbackState.position.rate)
        try await commit(snapshot, newItem: true, queueChanged: queueChanged, audioStart: 0, session: session)
    }

    /// Broadcasts the snapshot's state (with the demo's capabilities and controls), its queue when
    /// it changed and its current entry when a new item starts; then re-arms the track end. When
    /// attached, the player is cued first: from `audioStart` (ms) of the queue index, or (nil) where
    /// its audio is.
    func commit(
        _ snapshot: SessionSnapshot, newItem: Bool = false, queueChanged: Bool = false, audioStart: Int64? = nil,
        session: SessionBroadcaster
    ) async throws {
        var state = snapshot.playbackState
        state.capabilities = initialCapabilities
        state.controls =
            state.status == .playing
            ? [.pause, .skipToPrevious, .skipToNext, .seekTo] : [.play, .skipToPrevious, .skipToNext, .seekTo]
        state.customActions = []
        if let id = snapshot.currentEntry?.id ?? snapshot.mediaItem.item?.id {
            let label = favourites.contains(id) ? "Unfavourite" : "Favourite"
            state.customActions = [CustomAction(name: Self.favouriteAction, label: label)]
        }
        if !(state.position.rate > 0) { state.position.rate = 1 }
        cueAudio(snapshot, state: state, start: audioStart)
        try await session.update(
            queue: queueChanged ? snapshot.queue : nil,
            mediaItem: newItem ? MediaItemState(item: snapshot.currentEntry) : nil,
            playbackState: state)
        await armTrackEnd(session: session)
    }

    /// Play order: the queue's own, or the shuffle order (made anew when the queue's size changed).
    func navigator(for snapshot: SessionSnapshot) -> QueueNavigator {
        let count = snapshot.queue.items.count
        guard snapshot.playbackState.shuffle else { return QueueNavigator(count: count) }
        if shuffleOrder.count != count { reshuffle(count: count, first: snapshot.playbackState.queueIndex) }
        return QueueNavigator(count: count, order: shuffleOrder)
    }

    private func reshuffle(count: Int, first: Int?) {
        shuffleOrder = QueueNavigator.shuffled(count: count, first: first, using: &generator).order
    }

    /// Moving to another item keeps playing or paused; a stopped player comes back paused.
    private static func keptStatus(_ status: PlaybackStatus) -> PlaybackStatus {
        status == .playing ? .playing : .paused
    }
}
