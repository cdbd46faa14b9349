import DashportLink
import DashportMessages

/// What one message from the server was, after ``MediaChannelClient/receive(messageId:body:now:)``
/// took it in (the client's state already reflects it).
public enum MediaChannelUpdate: Sendable, Hashable {
    case serverHello(DashportMedia.ServerHello)
    /// An answer, with the request it answers (no longer in flight).
    case answer(MediaChannelRequest, MediaChannelAnswer)
    case playbackState(DashportMedia.PlaybackState)
    case mediaItem(DashportMedia.MediaItemState)
    case queue(DashportMedia.QueueState)
    case sessionError(DashportMedia.SessionError)
    case childrenChanged(DashportMedia.ChildrenChanged)
    case sleepTimer(DashportMedia.SleepTimerState)
    case sleepTimerFired(DashportMedia.SleepTimerFired)
    case remotePlayback(DashportMedia.RemotePlaybackState)
}

/// The latest SLEEP_TIMER_STATE and when it arrived.
public struct SleepTimerSnapshot: Sendable, Hashable {
    public var state: DashportMedia.SleepTimerState
    public var receivedAt: Duration

    public init(state: DashportMedia.SleepTimerState, receivedAt: Duration) {
        self.state = state
        self.receivedAt = receivedAt
    }

    /// Milliseconds left at car time `now` (counting down from `remainingMs` at receipt), never
    /// below 0; nil without an armed timer or while an end-of-track timer waits.
    public func remainingMs(at now: Duration) -> Int64? {
        guard state.mode != nil, let remaining = state.remainingMs else { return nil }
        return Swift.max(0, remaining - (now - receivedAt).wholeMicroseconds / 1000)
    }
}

/// The server's playback state and when the car received it, on the car's clock; with the anchor
/// that is enough to know the position at any later time.
public struct PlaybackSnapshot: Sendable, Hashable {
    public var state: DashportMedia.PlaybackState
    public var receivedAt: Duration

    public init(state: DashportMedia.PlaybackState, receivedAt: Duration) {
        self.state = state
        self.receivedAt = receivedAt
    }

    /// The position at car time `now`, in ms: `valueMs + (sentAtMs - atMs + (now - receivedAt)) × rate`
    /// (dashport_media.proto, PositionAnchor), never below 0 nor past `durationMs` when known.
    /// `nil` without an anchor.
    public func positionMs(at now: Duration, durationMs: Int64? = nil) -> Int64? {
        guard let anchor = state.position else { return nil }
        let sentAt = state.sentAtMs ?? anchor.atMs
        let elapsed = Double(sentAt - anchor.atMs) + Double((now - receivedAt).wholeMicroseconds / 1000)
        let raw = Double(anchor.valueMs) + elapsed * anchor.rate
        var position = raw.isFinite ? Int64(clamping: raw) : anchor.valueMs
        if let durationMs, durationMs > 0 { position = min(position, durationMs) }
        return max(0, position)
    }
}
