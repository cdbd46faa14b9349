public import DashportClock
public import DashportLog

/// One update on the session's broadcast channels.
public enum SessionUpdate: Sendable, Hashable {
    case playbackState(PlaybackState)
    case mediaItem(MediaItemState)
    case queue(QueueState)
    case error(SessionError)
    /// The sleep timer fired; playback was paused just before this was sent (and a
    /// `sleepTimer(nil)` follows).
    case sleepTimerFired
    /// The sleep timer was armed, re-armed (an end-of-track deadline moved), cancelled or fired (nil).
    case sleepTimer(SleepTimerStatus?)
    /// The handler declared, changed or withdrew (nil) remote playback.
    case remotePlayback(RemotePlayback?)
}

/// A problem the session (or a layer feeding it) reports to every subscriber, and so to every car.
///
/// These are not command answers (those are ``CommandResult``): they say something went wrong
/// that a user or developer should know about, e.g. a tab was dropped or a cover failed.
public struct SessionError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable, CaseIterable {
        /// A root entry was not made a tab (over the car's cap, or not browsable).
        case browseRootRejected
        /// A browse branch was deeper than the car's max depth and was cut.
        case browseDepthExceeded
        /// The browse disk cache was corrupt or foreign and was discarded.
        case browseCacheDiscarded
        /// The browse provider is not answering; cars are served from the cache.
        case browseProviderUnavailable
        /// A media-item broadcast named another id than the queue entry at the queue index; the
        /// queue entry was used.
        case metadataMismatch
        /// A cover could not be fetched or decoded (reported once per URI).
        case artworkFailed
        /// The handler failed a command or a timer-driven change it was asked to make.
        case handlerFailed
        /// The player itself failed (the handler's report).
        case playbackFailed
        /// The session could not be written to disk.
        case persistenceFailed
        /// The persisted session could not be restored (corrupt or from an unknown version).
        case restoreFailed
    }

    /// `fatal`: playback cannot go on until the user acts. `degraded`: it goes on, with less.
    public enum Severity: String, Sendable, Hashable, Codable, CaseIterable {
        case fatal, degraded
    }

    public var code: Code
    public var severity: Severity
    /// Words for a car: names items by id or title, never a server file path.
    public var message: String
    /// What it is about: the dropped root entry's id (`browseRootRejected`), the cut parent's id
    /// (`browseDepthExceeded`), the artwork key (`artworkFailed`), the queue entry's id
    /// (`metadataMismatch`); nil when it is about no one item.
    public var subject: String?

    public init(code: Code, severity: Severity, message: String, subject: String? = nil) {
        self.code = code
        self.severity = severity
        self.message = message
        self.subject = subject
    }

    public var description: String { "\(code.rawValue) (\(severity.rawValue)): \(message)" }
}

/// The shared session: fan-in of every car's commands into one handler, fan-out of three state
/// channels (playback state, media item, queue) plus session errors to every subscriber.
///
/// Commands are serialized: one command, timer action or broadcast from outside a command runs at a
/// time. The channels change only through validated broadcasts (``SessionBroadcaster``), each
/// written to the store when there is one; the sleep timer and periodic checkpoints run on the
/// injected clock.
///
/// ```swift
/// let clock = SystemClock()
/// let core = SessionCore(
///     handler: DemoPlaybackHandler(library: catalog, clock: clock), clock: clock,
///     persistence: SessionStore(directory: stateDirectory), logger: Logger(label: "session"))
/// _ = await core.restore()                       // at startup: the last session, paused
/// for await update in await core.subscribe() { … } // per car: push state, item, queue, errors
/// let result = await core.perform(.skipToNext, from: .aapKey(car: peer))
/// ```
public actor SessionCore {
    let handler: any SessionHandler
    let clock: any DashportClock
    let store: SessionStore?
    /// Writes `store` off the actor (nil without a store).
    let writer: SessionWriter?
    public nonisolated let configuration: SessionConfiguration
    let logger: Logger
    let validator: StateValidator

    /// The playback-state channel's current value.
    public internal(set) var playbackState: PlaybackState
    /// The media-item channel's current value.
    public internal(set) var mediaItem: MediaItemState
    /// The queue channel's current value.
    public internal(set) var queue: QueueState
    /// Remote playback as the handler declared it; nil while audio plays locally. Never persisted.
    public internal(set) var remotePlayback: RemotePlayback?

    /// Streams from ``subscribe()`` and handlers from ``subscribe(started:_:)``.
    var subscribers: [UInt64: Subscriber] = [:]
    var nextSubscriberId: UInt64 = 0
    var closed = false

    var gateHeld = false
    var gateSerial: UInt64 = 0
    var gateWaiters: [CheckedContinuation<Void, Never>] = []

    var sleepTimer: ArmedSleepTimer?
    var sleepGeneration: UInt64 = 0
    var sleepTimerDue = false
    var checkpointTimer: ClockTimer?
    var checkpointGeneration: UInt64 = 0
    var persistenceFailing = false
    /// Something changed that is not yet written and waits for the next checkpoint (a change
    /// that does not matter for a restore on its own: a playing position, buffering, controls).
    var unsavedChanges = false

    /// A core with an idle session (stopped, nothing queued, the handler's initial capabilities).
    /// Call ``restore()`` to bring back the persisted session.
    public init(
        handler: any SessionHandler,
        clock: any DashportClock,
        persistence: SessionStore? = nil,
        configuration: SessionConfiguration = SessionConfiguration(),
        logger: Logger = .silent
    ) {
        self.handler = handler
        self.clock = clock
        self.store = persistence
        self.writer = persistence.map(SessionWriter.init(store:))
        self.configuration = configuration
        self.logger = logger
        self.validator = StateValidator(configuration: configuration)
        self.playbackState = PlaybackState(
            position: PositionAnchor(valueMs: 0, at: clock.now), capabilities: handler.initialCapabilities)
        self.mediaItem = .none
        self.queue = .empty
        self.remotePlayback = handler.initialRemotePlayback
        writer?.onOutcome { [weak self] in
            Task { await self?.takeWriteOutcomes() }  // only when a write starts or stops failing
        }
    }

    /// All three channels as one consistent reading.
    public var snapshot: SessionSnapshot {
        SessionSnapshot(playbackState: playbackState, mediaItem: mediaItem, queue: queue)
    }

    /// The handle handlers broadcast through; also handed to every handler call.
    public nonisolated var broadcaster: SessionBroadcaster { SessionBroadcaster(core: self) }

    /// The position at `instant`, projected from the anchor and clamped to the item's duration.
    public func projectedPositionMs(at instant: ClockInstant) -> Int64 {
        playbackState.projectedPositionMs(at: instant, durationMs: mediaItem.item?.durationMs)
    }

    /// The armed sleep timer, if any, and its current deadline (nil while an end-of-track timer waits).
    public var activeSleepTimer: (timer: SleepTimer, deadline: ClockInstant?)? {
        sleepTimer.map { ($0.timer, $0.deadline) }
    }

    /// The armed sleep timer as cars see it, or nil.
    public var sleepTimerStatus: SleepTimerStatus? {
        sleepTimer.map { SleepTimerStatus(timer: $0.timer, deadline: $0.deadline) }
    }

    /// A stream of every update from now on. The current queue, media item and playback state are
    /// delivered first, in that order, then the sleep timer and remote playback when there are
    /// any. A subscriber that falls behind by more than
    /// ``SessionConfiguration/subscriberBufferLimit`` updates loses the oldest.
    public func subscribe() -> AsyncStream<SessionUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: SessionUpdate.self, bufferingPolicy: .bufferingNewest(configuration.subscriberBufferLimit))
        guard !closed else {
            continuation.finish()
            return stream
        }
        continuation.yield(.queue(queue))
        continuation.yield(.mediaItem(mediaItem))
        continuation.yield(.playbackState(playbackState))
        if let status = sleepTimerStatus { continuation.yield(.sleepTimer(status)) }
        if let remotePlayback { continuation.yield(.remotePlayback(remotePlayback)) }
        let id = nextSubscriberId
        nextSubscriberId += 1
        subscribers[id] = .stream(continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return stream
    }

    /// Reports an error to every subscriber and the log: how the browse core, the artwork endpoint
    /// and the services surface problems to cars. `log: false` when the layer it comes from logged
    /// it already, so that one fault is one log line.
    public func report(_ error: SessionError, log: Bool = true) {
        let subject = error.subject ?? "-"
        switch log ? error.severity : nil {
        case nil: break
        case .fatal: logger.error("session error: \(error.message)", ["code": error.code.rawValue, "subject": subject])
        case .degraded: logger.warning("session error: \(error.message)", ["code": error.code.rawValue, "subject": subject])
        }
        emit(.error(error))
    }

    /// Stops timers and ends every subscriber's stream; later commands are rejected and later
    /// broadcasts ignored (the handler's own timers may still fire into a closed core).
    /// Writes the session one last time first (position projected to now), so a restart resumes
    /// exactly where the server stopped rather than at the last 30 s checkpoint.
    public func close() {
        guard !closed else { return }
        persist()
        writer?.flush()  // on disk before the server goes: the one wait on the writer
        takeWriteOutcomes()
        closed = true
        sleepTimer?.handle?.cancel()
        sleepTimer = nil
        checkpointTimer?.cancel()
        checkpointTimer = nil
        for case .stream(let continuation) in subscribers.values { continuation.finish() }
        subscribers.removeAll()
    }

    // MARK: Broadcasts

    /// A broadcast from a handler: applied at once inside a command, else after the running one.
    /// Ignored once the core is closed.
    func broadcast(queue: QueueState?, mediaItem: MediaItemState?, playbackState: PlaybackState?)
        async throws(SessionStateError)
    {
        guard !closed else { return }
        if isInsideGate {
            return try apply(queue: queue, mediaItem: mediaItem, playbackState: playbackState)
        }
        let result: Result<Void, SessionStateError> = await exclusively {
            do throws(SessionStateError) {
                try self.apply(queue: queue, mediaItem: mediaItem, playbackState: playbackState)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Validates the channels as they would be, then changes and broadcasts them all or nothing.
    func apply(queue newQueue: QueueState?, mediaItem newItem: MediaItemState?, playbackState newState: PlaybackState?)
        throws(SessionStateError)
    {
        let queue = newQueue ?? self.queue
        let state = newState ?? self.playbackState
        let entry = state.queueIndex.flatMap { queue.items.indices.contains($0) ? queue.items[$0] : nil }
        let (item, mismatch) = resolveItem(given: newItem, entry: entry)
        do {
            try validator.validate(SessionSnapshot(playbackState: state, mediaItem: item, queue: queue))
        } catch {
            logger.warning("broadcast refused: \(error)")
            throw error
        }
        let queueChanged = queue != self.queue
        let itemChanged = item != self.mediaItem
        let stateChanged = !state.isContinuation(of: self.playbackState)
        let restoreChanged =
            queueChanged || item.item?.id != self.mediaItem.item?.id
            || Self.mattersForRestore(from: self.playbackState, to: state)
        self.queue = queue
        self.mediaItem = item
        if stateChanged { self.playbackState = state }
        if queueChanged { emit(.queue(queue)) }
        if itemChanged { emit(.mediaItem(item)) }
        if stateChanged { emit(.playbackState(state)) }
        if let mismatch { report(mismatch) }
        guard queueChanged || itemChanged || stateChanged else { return }
        persistAfterBroadcast(now: restoreChanged)
        sleepTimerAfterBroadcast()
    }

    /// The media item after a broadcast, and the mismatch to report if the given one was overruled.
    private func resolveItem(given: MediaItemState?, entry: MediaItem?) -> (MediaItemState, SessionError?) {
        guard let given else {
            guard let entry, mediaItem.item?.id != entry.id else { return (mediaItem, nil) }
            return (MediaItemState(item: entry), nil)
        }
        guard let entry else { return (given, nil) }
        guard let item = given.item else { return (MediaItemState(item: entry), nil) }
        if item.id == entry.id { return (MediaItemState(item: item.merged(over: entry)), nil) }
        let mismatch = SessionError(
            code: .metadataMismatch, severity: .degraded,
            message: "media item '\(item.id)' is not the queue entry at the queue index ('\(entry.id)'); the queue entry is shown",
            subject: entry.id)
        return (MediaItemState(item: entry), mismatch)
    }
}
