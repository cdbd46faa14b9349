public import DashportClock
import DashportLog
import DashportMessages
public import DashportSession

/// The AAP media playback status service (Service field 9) for one car: what a stock AAP head unit
/// shows on its now-playing screen, and its MEDIA_PLAYBACK_INPUT.
///
/// Sans-IO: the connection driver creates one per car once the channel opens, calls
/// ``start(snapshot:now:)`` with the session's current snapshot, then feeds it the car's messages on
/// the channel, every ``SessionUpdate``, artwork answers and ``tick(now:)`` at ``nextDeadline``. It
/// returns ``Action``s and never sends on another channel. `now` is the link's monotonic time;
/// ``Configuration/sessionClockOrigin`` maps it onto the session clock that position anchors use.
///
/// What goes to the car:
/// - MEDIA_PLAYBACK_STATUS (0x8001) on every discontinuity: state, shuffle or repeat changes, a seek
///   or rate change (the anchor jumps), a new item; and, while playing, at most once per
///   ``Configuration/statusInterval`` with the position projected from the anchor (a periodic
///   status equal to the last one is skipped, e.g. at the clamped end of an item). Nothing
///   periodic while paused, stopped or buffering (the position does not move).
/// - MEDIA_PLAYBACK_METADATA (0x8003) on every item change, with the cover fetched at
///   ``Configuration/artworkWidth`` × ``Configuration/artworkHeight``; see
///   ``artworkArrived(itemId:bytes:)`` for the cover's order rules.
/// - Metadata first: on a track change the new item's metadata goes before (or, with a cover the
///   cache has to look up, right before) the status that starts it, so a car never shows the new
///   state under the old title; a cached cover goes with that first metadata. What waits, waits
///   for an event (the cache's answer), never for a timer, so the order on the wire does not
///   depend on the machine's speed.
///
/// Every field is written explicitly (real phones send shuffle and repeat as explicit false):
/// status carries all six; metadata carries song, artist, album and duration (empty or 0 when
/// unknown), album art only when there is a cover, and leaves playlist and rating out.
///
/// State mapping: playing and buffering → PLAYING (buffering is the start of playing: the car's
/// play/pause key then pauses, as ``SessionCommand/playPause`` does while buffering); paused →
/// PAUSED; stopped and error → STOPPED (an error cannot resume without the user; the ERROR value 4
/// is known only from an APK trace, so it is not sent). `repeat` is repeat-all, `repeat_one` is
/// repeat-one; never both.
public struct AAPPlaybackStatusService: Sendable {
    /// Settings for one car's service; the defaults suit every head unit seen so far.
    public struct Configuration: Sendable, Hashable {
        /// MediaPlaybackStatus.media_source: the "app" name the car shows. Default "Dashport".
        public var mediaSource: String
        /// Box the cover is fetched at, in pixels (AAP cars do not say; real phones send ~256 px).
        /// Default 256 × 256; values below 1 count as 1.
        public var artworkWidth: Int
        public var artworkHeight: Int
        /// The least time between two periodic statuses while playing. Default 1 s; values below
        /// ``minimumStatusInterval`` count as that.
        public var statusInterval: Duration
        /// Covers larger than this are not sent (the metadata goes without art and a warning is
        /// logged). Default 512 KiB, well under the link's 1 MiB message cap.
        public var maxArtworkBytes: Int
        /// The link time (`now`) at which the session clock read zero: a position anchor taken at
        /// session instant `t` happened at link time `sessionClockOrigin + t`. Default `.zero`, for
        /// a driver that measures `now` on the session clock's time line.
        public var sessionClockOrigin: Duration

        public init(
            mediaSource: String = "Dashport",
            artworkWidth: Int = 256,
            artworkHeight: Int = 256,
            statusInterval: Duration = .seconds(1),
            maxArtworkBytes: Int = 512 * 1024,
            sessionClockOrigin: Duration = .zero
        ) {
            self.mediaSource = mediaSource
            self.artworkWidth = artworkWidth
            self.artworkHeight = artworkHeight
            self.statusInterval = statusInterval
            self.maxArtworkBytes = maxArtworkBytes
            self.sessionClockOrigin = sessionClockOrigin
        }

        /// The floor of ``statusInterval`` (100 ms), so a misconfiguration cannot make the driver spin.
        public static let minimumStatusInterval: Duration = .milliseconds(100)

        /// The ``sessionClockOrigin`` for a link whose time reads `linkNow` while the session
        /// clock reads `sessionNow` (read both at about the same moment, e.g. when the channel
        /// opens; the result is good to the millisecond).
        public static func sessionClockOrigin(linkNow: Duration, sessionNow: ClockInstant) -> Duration {
            linkNow - .milliseconds(sessionNow.milliseconds)
        }
    }

    /// What the driver must do, in order.
    public enum Action: Sendable, Hashable {
        /// Send this message to the car (always on this service's channel).
        case send(OutgoingMessage)
        /// Perform this command on the session core; hand the result to ``commandFinished(_:result:)``
        /// if you like (only a rejection is logged).
        case command(SessionCommand, CommandSource)
        /// Look the cover at `uri` (downscaled to fit width × height) up in the cache first: answer
        /// with ``artworkArrived(itemId:bytes:)`` when it is there, else with
        /// ``artworkNotCached(itemId:)``, then fetch it and answer with
        /// ``artworkArrived(itemId:bytes:)`` (encoded image bytes, or nil when it failed or there
        /// is none). The driver must answer: the metadata and statuses wait for its first answer.
        case fetchArtwork(uri: String, width: Int, height: Int, itemId: String)
        /// Log this line (with the driver's peer and channel metadata).
        case log(AAPServiceLog)
    }

    /// The channel the car assigned to this service in its discovery response.
    public let channel: UInt8
    /// Who the car is, for ``CommandSource/aapPlaybackInput(car:)``.
    public let car: String
    public let configuration: Configuration

    // Session model, kept current by `sessionUpdated` even before `start`.
    var playback = PlaybackState()
    var item: MediaItem?
    var started = false

    // Status bookkeeping.
    var lastStatus: AAP.MediaPlaybackStatus?
    /// When the last periodic check ran or a status went out (the periodic cadence counts from it).
    var statusCheckedAt: Duration?
    /// Set by an item change: the position restarted, so the car is owed a status. The playback
    /// state the core broadcasts right after an item change pays it (so the car never sees the new
    /// item with the old item's position); if none comes, the next tick does.
    var statusOwedSince: Duration?

    // Metadata bookkeeping.
    var lastMetadata: AAP.MediaPlaybackMetadata?
    var artwork: ArtworkState?
    /// Statuses that wait for the metadata (while the cache's answer is awaited), in order; all
    /// of the current item (an item change drops them and owes one status instead).
    var heldStatuses: [Action] = []
    /// The most statuses held at once; older ones are dropped (each status says the whole state).
    static let maxHeldStatuses = 8

    /// A service for the channel `channel` of the car `car`. Nothing is sent until ``start(snapshot:now:)``.
    public init(channel: UInt8, car: String, configuration: Configuration = Configuration()) {
        self.channel = channel
        self.car = car
        self.configuration = configuration
    }

    /// The channel is open: take `snapshot` as the session's state and push status and metadata
    /// (or ask for the cover first). Calling it again re-pushes everything.
    public mutating func start(snapshot: SessionSnapshot, now: Duration) -> [Action] {
        started = true
        playback = snapshot.playbackState
        item = snapshot.mediaItem.item
        lastStatus = nil
        lastMetadata = nil
        statusOwedSince = nil
        heldStatuses = []
        // Metadata first; the status with it, or once the cache answered for the cover.
        var actions = itemChanged(now: now)
        actions += emitStatus(now: now)
        return actions
    }

    /// One update from the session's broadcast channels. Queue updates, errors and the sleep-timer
    /// notice change nothing a stock AAP car shows.
    public mutating func sessionUpdated(_ update: SessionUpdate, now: Duration) -> [Action] {
        switch update {
        case .playbackState(let state):
            let previous = playback
            playback = state
            guard started else { return [] }
            let owed = statusOwedSince != nil
            guard owed || Self.isDiscontinuity(from: previous, to: state) else { return [] }
            return emitStatus(now: now)
        case .mediaItem(let state):
            let previous = item
            item = state.item
            guard started, previous != state.item else { return [] }
            if previous?.id != state.item?.id { statusOwedSince = statusOwedSince ?? now }
            if !heldStatuses.isEmpty {
                // Statuses held for the last item's metadata describe that item (its position,
                // clamped to its duration): released after this item's metadata they would show
                // the new title with the old position. One status for this item is owed instead.
                heldStatuses = []
                statusOwedSince = statusOwedSince ?? now
            }
            return itemChanged(now: now)
        case .queue, .error, .sleepTimerFired, .sleepTimer, .remotePlayback:
            return []
        }
    }

    /// A message from the car on this channel. MEDIA_PLAYBACK_INPUT becomes a session command;
    /// anything else, or a body that does not decode, is logged and ignored.
    public mutating func receive(messageId: UInt16, body: [UInt8], now: Duration) -> [Action] {
        guard messageId == UInt16(aap: AAP.MediaPlaybackStatusMessageId.input.rawValue) else {
            return [.log(.unexpected(messageId: messageId, on: "media playback status"))]
        }
        let input: AAP.MediaPlaybackInput
        do {
            input = try AAP.MediaPlaybackInput(serializedBytes: body)
        } catch {
            return [.log(.undecodable("MEDIA_PLAYBACK_INPUT", messageId: messageId, error))]
        }
        guard let command = SessionCommand.fromAAPPlaybackInput(input.action.rawValue) else {
            return [
                .log(
                    AAPServiceLog(
                        level: .debug, message: "MEDIA_PLAYBACK_INPUT action \(input.action) has no playback meaning, ignored",
                        messageId: messageId))
            ]
        }
        return [.command(command, .aapPlaybackInput(car: car))]
    }

    /// The session core's answer to a command this service asked for; a rejection is logged.
    public func commandFinished(_ command: SessionCommand, result: CommandResult) -> [Action] {
        AAPServiceLog.outcome(of: command, result).map { [.log($0)] } ?? []
    }

    /// Time passed: pays an owed status and sends the periodic status while playing (neither while
    /// the metadata waits for the cache's answer). Safe to call at any time, as often as the driver likes.
    public mutating func tick(now: Duration) -> [Action] {
        guard started, !isMetadataHeld else { return [] }
        var actions: [Action] = []
        if let owed = statusOwedSince, owed <= now {
            actions.append(sendStatus(now: now))
        }
        if let due = periodicStatusDue, due <= now {
            statusCheckedAt = now
            let status = statusMessage(now: now)
            if status != lastStatus { actions.append(send(status)) }
        }
        return actions
    }

    /// When ``tick(now:)`` next has something to do, or nil when only an input will change anything.
    /// While the metadata waits for the cache's answer, nil: that answer is an input.
    public var nextDeadline: Duration? {
        guard started, !isMetadataHeld else { return nil }
        return [statusOwedSince, periodicStatusDue].compactMap { $0 }.min()
    }

    // MARK: Status

    /// When the next periodic status is due: only while the position advances.
    var periodicStatusDue: Duration? {
        guard playback.isAdvancing, let checked = statusCheckedAt else { return nil }
        return checked + max(configuration.statusInterval, Configuration.minimumStatusInterval)
    }

    /// Builds and sends the status for `now`, restarting the periodic cadence from here.
    mutating func sendStatus(now: Duration) -> Action {
        statusOwedSince = nil
        statusCheckedAt = now
        return send(statusMessage(now: now))
    }

    /// Records and wraps a status message.
    mutating func send(_ status: AAP.MediaPlaybackStatus) -> Action {
        lastStatus = status
        return .send(
            OutgoingMessage(
                channel: channel, messageId: UInt16(aap: AAP.MediaPlaybackStatusMessageId.status.rawValue), message: status))
    }

    /// Whether a playback-state update changes what the car shows beyond the projection it already
    /// has: the mapped state, shuffle or repeat, or an anchor that is not on the old projection
    /// (a seek, or a rate change). Controls, capabilities and buffering progress are not.
    static func isDiscontinuity(from old: PlaybackState, to new: PlaybackState) -> Bool {
        if aapState(old.status) != aapState(new.status) || old.shuffle != new.shuffle || old.repeatMode != new.repeatMode {
            return true
        }
        if old.position.rate != new.position.rate { return true }
        let expected = old.position.projectedMs(at: new.position.at, advancing: old.isAdvancing)
        let (difference, overflow) = expected.subtractingReportingOverflow(new.position.valueMs)
        return overflow || difference.magnitude > 1
    }

    /// The AAP state for a session status (see the type's documentation for why).
    static func aapState(_ status: PlaybackStatus) -> AAP.MediaPlaybackStatus.State {
        switch status {
        case .playing, .buffering: .playing
        case .paused: .paused
        case .stopped, .error: .stopped
        }
    }

    /// The status message at `now`: every field set, seconds projected and clamped to the duration.
    func statusMessage(now: Duration) -> AAP.MediaPlaybackStatus {
        let positionMs = playback.projectedPositionMs(at: sessionInstant(now), durationMs: item?.durationMs)
        return AAP.MediaPlaybackStatus(
            state: Self.aapState(playback.status),
            mediaSource: configuration.mediaSource,
            playbackSeconds: UInt32(clamping: positionMs / 1000),
            shuffle: playback.shuffle,
            repeat: playback.repeatMode == .all,
            repeatOne: playback.repeatMode == .one)
    }

    /// `now` on the session clock's time line.
    func sessionInstant(_ now: Duration) -> ClockInstant {
        ClockInstant(milliseconds: (now - configuration.sessionClockOrigin).aapMilliseconds)
    }
}
