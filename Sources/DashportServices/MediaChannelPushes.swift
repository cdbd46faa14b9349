// Sources/DashportServices/MediaChannelPushes.swift - session updates and browse notifications pushed
// to the car: PLAYBACK_STATE, MEDIA_ITEM_STATE, QUEUE_STATE, SESSION_ERROR, CHILDREN_CHANGED.

public import DashportClock
public import DashportBrowse
import DashportMessages
public import DashportSession
import DashportLog

/// What the service knows of the session: the latest playback state and item duration (to resolve
/// jumps), and each channel's latest wire form next to the one last pushed.
struct SessionMirror: Sendable {
    var playbackState: PlaybackState?
    var durationMs: Int64?
    /// Wire forms with their artwork keys resolved; the state without `sentAtMs`.
    var latestState: DashportMedia.PlaybackState?
    var latestItem: DashportMedia.MediaItemState?
    var latestQueue: DashportMedia.QueueState?
    var pushedState: DashportMedia.PlaybackState?
    var pushedItem: DashportMedia.MediaItemState?
    var pushedQueue: DashportMedia.QueueState?
    /// The sleep timer as last heard, and whether the car has not been told yet. A car starts out
    /// assuming no timer and local playback, so nothing is owed until the session says otherwise.
    var sleepTimer: SleepTimerStatus?
    var sleepTimerOwed = false
    var latestRemote = DashportMedia.RemotePlaybackState()
    var pushedRemote = DashportMedia.RemotePlaybackState()
    /// Car-specific reports already sent to this car (code and subject), so each goes once.
    var reportsSent: Set<SentReport> = []

    /// A report's code and subject (no subject and an empty one are the same report). Not a string
    /// joined from the two: a memoised answer hands its reports in again with every request, and
    /// building that string each time was 1.8% of a reactor's samples (issue 22, item 2).
    struct SentReport: Hashable {
        var code: SessionError.Code
        var subject: String
    }

    /// The position at `now` by the last playback state (0 before any).
    func projectedPositionMs(at now: ClockInstant) -> Int64 {
        playbackState?.projectedPositionMs(at: now, durationMs: durationMs) ?? 0
    }
}

extension MediaChannelService {
    /// One update from the session core, pushed to the car once the channel is open (before
    /// ``open(now:)`` the three channels are only remembered and go out after the hello; errors and
    /// the sleep-timer notice before it are dropped, being events rather than state). A channel
    /// value whose wire form equals the one last pushed is not pushed again (the replay of a late
    /// subscription; a rate change while paused, as the anchor's rate is 0 until playing).
    /// `artworkKeys` maps the update's artwork URIs (`artworkURIs(in:)`) to registered keys.
    ///
    /// PLAYBACK_STATE carries the anchor as the schema documents it: `valueMs` at server monotonic
    /// `atMs`, `rate` 0 unless playing, and `sentAtMs` = `now`, which must come from the session's
    /// clock. The `sleepTimer` action is listed with the capabilities whenever `pause` is (the
    /// session arms a timer only then).
    public mutating func sessionUpdated(
        _ update: SessionUpdate, artworkKeys: [String: String], now: ClockInstant
    ) -> [MediaChannelAction] {
        switch update {
        case .playbackState(let state):
            session.playbackState = state
            session.latestState = wireState(state, keys: artworkKeys)
        case .mediaItem(let item):
            session.durationMs = item.item?.durationMs
            session.latestItem = DashportMedia.MediaItemState(item: item.item.map { wireMediaItem($0, keys: artworkKeys) })
        case .queue(let queue):
            session.latestQueue = wireQueue(queue, keys: artworkKeys)
        case .error(let error):
            guard isOpen else { return [] }
            return [send(.sessionError, Self.wireError(error))]
        case .sleepTimerFired:
            guard isOpen else { return [] }
            return [send(.sleepTimerFired, DashportMedia.SleepTimerFired(atMs: now.milliseconds))]
        case .sleepTimer(let status):
            session.sleepTimer = status
            session.sleepTimerOwed = true
        case .remotePlayback(let remote):
            session.latestRemote = Self.wireRemote(remote)
        }
        return isOpen ? pushKnownState(now: now) : []
    }

    /// The artwork URIs a session update would send (covers of items, icons of custom actions), for
    /// the driver to register before handing the update in.
    public static func artworkURIs(in update: SessionUpdate) -> Set<String> {
        switch update {
        case .playbackState(let state): Set(state.customActions.compactMap(\.iconUri))
        case .mediaItem(let item): Set([item.item?.artworkUri].compactMap { $0 })
        case .queue(let queue): Set(queue.items.compactMap(\.artworkUri))
        case .error, .sleepTimerFired, .sleepTimer, .remotePlayback: []
        }
    }

    /// A browse core notification: children-changed goes to the car (no parent = everything).
    /// Reports are telemetry for logs; they reach cars, if at all, through the session's errors.
    public func browseNotified(_ notification: BrowseNotification) -> [MediaChannelAction] {
        guard isOpen, case .childrenChanged(let parentId) = notification else { return [] }
        return [send(.childrenChanged, DashportMedia.ChildrenChanged(parentId: parentId))]
    }

    /// Pushes every channel whose latest wire form differs from what was last pushed: queue, item,
    /// state (stamped `sentAtMs` = `now`), then the sleep timer (remaining time at `now`) and
    /// remote playback.
    mutating func pushKnownState(now: ClockInstant) -> [MediaChannelAction] {
        var actions: [MediaChannelAction] = []
        if let queue = session.latestQueue, queue != session.pushedQueue {
            session.pushedQueue = queue
            actions.append(send(.queueState, queue))
        }
        if let item = session.latestItem, item != session.pushedItem {
            session.pushedItem = item
            actions.append(send(.mediaItemState, item))
        }
        if var state = session.latestState, state != session.pushedState {
            session.pushedState = state
            state.sentAtMs = now.milliseconds
            actions.append(send(.playbackState, state))
        }
        if session.sleepTimerOwed {
            session.sleepTimerOwed = false
            actions.append(send(.sleepTimerState, Self.wireSleepTimer(session.sleepTimer, now: now)))
        }
        if session.latestRemote != session.pushedRemote {
            session.pushedRemote = session.latestRemote
            actions.append(send(.remotePlaybackState, session.latestRemote))
        }
        return actions
    }

    /// A report caused by this car's own profile (a dropped tab, a cut branch), sent as
    /// SESSION_ERROR to this car once per code and subject.
    public mutating func carReport(_ error: SessionError) -> [MediaChannelAction] {
        guard isOpen else { return [] }
        let key = SessionMirror.SentReport(code: error.code, subject: error.subject ?? "")
        guard session.reportsSent.count < Self.maxRememberedReports, session.reportsSent.insert(key).inserted else { return [] }
        return [send(.sessionError, Self.wireError(error))]
    }

    /// How many distinct car reports one car is told about (later ones are only logged).
    static let maxRememberedReports = 1024

    // MARK: - Wire values

    /// The wire playback state, without `sentAtMs` (stamped when pushed).
    func wireState(_ state: PlaybackState, keys: [String: String]) -> DashportMedia.PlaybackState {
        var capabilities = state.capabilities.map(\.wire)
        if state.capabilities.contains(.pause) { capabilities.append(.sleepTimer) }
        return DashportMedia.PlaybackState(
            status: state.status.wire,
            position: DashportMedia.PositionAnchor(
                valueMs: state.position.valueMs, atMs: state.position.at.milliseconds,
                rate: state.isAdvancing ? state.position.rate : 0),
            bufferedPositionMs: state.bufferedPositionMs,
            controls: state.controls.map(\.wire).sorted { $0.rawValue < $1.rawValue },
            capabilities: capabilities.sorted { $0.rawValue < $1.rawValue },
            customActions: state.customActions.map {
                DashportMedia.CustomActionInfo(name: $0.name, label: $0.label, iconArtworkKey: artworkKey($0.iconUri, keys))
            },
            queueIndex: state.queueIndex.flatMap { UInt32(exactly: $0) },
            errorMessage: state.errorMessage,
            repeatMode: state.repeatMode.wire,
            shuffle: state.shuffle,
            speed: state.position.rate)
    }

    func wireMediaItem(_ item: MediaItem, keys: [String: String]) -> DashportMedia.MediaItem {
        DashportMedia.MediaItem(
            id: item.id, title: item.title, artist: item.artist, album: item.album,
            artworkKey: artworkKey(item.artworkUri, keys), durationMs: item.durationMs,
            subtitle: item.subtitle, albumArtist: item.albumArtist, genre: item.genre,
            trackNumber: item.trackNumber.flatMap { UInt32(exactly: $0) },
            discNumber: item.discNumber.flatMap { UInt32(exactly: $0) },
            year: item.year.flatMap { Int32(exactly: $0) },
            isLive: item.isLive,
            extras: (item.extras ?? [:]).sorted { $0.key < $1.key }.map { DashportMedia.MediaItem.Extra(key: $0.key, value: $0.value) })
    }

    /// SLEEP_TIMER_STATE at `now`: the mode and the time left (none while an end-of-track timer waits).
    static func wireSleepTimer(_ status: SleepTimerStatus?, now: ClockInstant) -> DashportMedia.SleepTimerState {
        guard let status else { return DashportMedia.SleepTimerState(sentAtMs: now.milliseconds) }
        let mode: DashportMedia.SleepTimerMode =
            switch status.timer {
            case .duration: .duration
            case .endOfTrack: .endOfTrack
            }
        return DashportMedia.SleepTimerState(
            mode: mode, remainingMs: status.deadline.map { max(0, $0.milliseconds(since: now)) }, sentAtMs: now.milliseconds)
    }

    static func wireRemote(_ remote: RemotePlayback?) -> DashportMedia.RemotePlaybackState {
        guard let remote else { return DashportMedia.RemotePlaybackState() }
        let control: DashportMedia.VolumeControl =
            switch remote.control {
            case .absolute: .absolute
            case .relative: .relative
            case .fixed: .fixed
            }
        return DashportMedia.RemotePlaybackState(
            remote: DashportMedia.RemotePlayback(
                volume: remote.volume, muted: remote.muted, steps: UInt32(clamping: remote.steps), control: control))
    }

    /// The queue, cut from the end (and logged) in the unlikely case it exceeds one message.
    func wireQueue(_ queue: QueueState, keys: [String: String]) -> DashportMedia.QueueState {
        var wire = DashportMedia.QueueState(items: queue.items.map { wireMediaItem($0, keys: keys) })
        var size = wire.serializedBytes().count
        while size > WireLimits.maximumMessageBytes, !wire.items.isEmpty {
            let keep = wire.items.count * WireLimits.maximumMessageBytes / size
            wire.items.removeLast(wire.items.count - min(keep, wire.items.count - 1))
            size = wire.serializedBytes().count
        }
        if wire.items.count < queue.items.count {
            logger.warning("the queue does not fit one message: \(queue.items.count - wire.items.count) entries cut")
        }
        return wire
    }

    static func wireError(_ error: SessionError) -> DashportMedia.SessionError {
        let code: DashportMedia.SessionErrorCode =
            switch error.code {
            case .browseRootRejected: .browseRootRejected
            case .browseDepthExceeded: .browseDepthExceeded
            case .browseCacheDiscarded: .cacheDiscarded
            case .browseProviderUnavailable: .providerUnavailable
            case .metadataMismatch: .metadataMismatch
            case .artworkFailed: .artworkFailed
            case .handlerFailed, .playbackFailed: .playbackFailed
            case .restoreFailed: .restoreFailed
            case .persistenceFailed: .unknown
            }
        return DashportMedia.SessionError(
            code: code, severity: error.severity == .fatal ? .fatal : .degraded, message: error.message,
            subject: error.subject)
    }
}

extension PlaybackStatus {
    var wire: DashportMedia.PlaybackStatus {
        switch self {
        case .playing: .playing
        case .paused: .paused
        case .buffering: .buffering
        case .stopped: .stopped
        case .error: .error
        }
    }
}

extension SessionCapability {
    var wire: DashportMedia.PlaybackAction {
        switch self {
        case .play: .play
        case .pause: .pause
        case .stop: .stop
        case .seekTo: .seekTo
        case .jumpForward: .jumpForward
        case .jumpBack: .jumpBack
        case .skipToNext: .skipToNext
        case .skipToPrevious: .skipToPrevious
        case .skipToQueueItem: .skipToQueueItem
        case .setRate: .setRate
        case .setRepeatMode: .setRepeatMode
        case .setShuffle: .setShuffle
        case .customAction: .customAction
        case .playFromMediaId: .playFromMediaId
        case .playFromSearch: .playFromSearch
        }
    }
}
