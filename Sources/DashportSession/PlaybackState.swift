public import DashportClock

/// What the player is doing.
public enum PlaybackStatus: String, Sendable, Hashable, Codable, CaseIterable {
    case playing, paused, buffering, stopped, error
}

/// What happens at the end of an item: go on (`none`), replay it (`one`), wrap the queue (`all`).
public enum RepeatMode: String, Sendable, Hashable, Codable, CaseIterable {
    case none, one, all
}

/// A command the session accepts. Declared in ``PlaybackState/capabilities``; a command whose
/// capability is not declared is rejected and never reaches the handler.
public enum SessionCapability: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case play, pause, stop, seekTo, jumpForward, jumpBack, skipToNext, skipToPrevious, skipToQueueItem
    case setRate, setRepeatMode, setShuffle, customAction, playFromMediaId, playFromSearch

    public static func < (a: SessionCapability, b: SessionCapability) -> Bool { a.rawValue < b.rawValue }
}

/// A handler-defined button (thumbs up, 30 s skip, sleep, ...) the car shows in its playback view.
public struct CustomAction: Sendable, Hashable, Codable {
    /// What the car sends back in ``SessionCommand/customAction(name:extras:)``.
    public var name: String
    /// What the button says (for accessibility and text-only cars).
    public var label: String
    public var iconUri: String?

    public init(name: String, label: String, iconUri: String? = nil) {
        self.name = name
        self.label = label
        self.iconUri = iconUri
    }
}

/// The playback position as an anchor: `valueMs` at the instant `at`, moving at `rate` while playing.
///
/// Anyone can project the current position from it, so it is broadcast only on discontinuities
/// (seek, pause, play, rate change, new item), never as a ticking clock.
public struct PositionAnchor: Sendable, Hashable, Codable {
    public var valueMs: Int64
    public var at: ClockInstant
    /// Playback speed (1 = normal). Kept while paused so playing resumes at the same speed.
    public var rate: Double

    public init(valueMs: Int64, at: ClockInstant, rate: Double = 1) {
        self.valueMs = valueMs
        self.at = at
        self.rate = rate
    }

    /// The position at `instant`: the anchor value moved on by `rate` if `advancing`, saturating at the
    /// bounds of `Int64` (instants before the anchor count as the anchor itself).
    public func projectedMs(at instant: ClockInstant, advancing: Bool) -> Int64 {
        guard advancing, rate > 0, rate.isFinite else { return valueMs }
        let elapsed = max(0, instant.milliseconds(since: at))
        return saturatingInt64(Double(valueMs) + Double(elapsed) * rate)
    }
}

/// The playback-state channel: everything about the player except what is playing.
public struct PlaybackState: Sendable, Hashable, Codable {
    /// Rates above this are refused (a car has no use for them and they overflow projections sooner).
    public static let maxRate: Double = 16

    public var status: PlaybackStatus
    public var position: PositionAnchor
    /// How far the player has buffered, when it knows.
    public var bufferedPositionMs: Int64?
    /// The buttons the car shows; each must also be in ``capabilities``.
    public var controls: Set<SessionCapability>
    /// The commands the session accepts.
    public var capabilities: Set<SessionCapability>
    /// Custom buttons; non-empty only with the `customAction` capability.
    public var customActions: [CustomAction]
    /// Index of the playing entry in the queue channel, or nil when nothing in the queue is current.
    public var queueIndex: Int?
    /// Why the player failed, for a car to show with status `error`.
    public var errorMessage: String?
    public var repeatMode: RepeatMode
    public var shuffle: Bool

    public init(
        status: PlaybackStatus = .stopped,
        position: PositionAnchor = PositionAnchor(valueMs: 0, at: .zero),
        bufferedPositionMs: Int64? = nil,
        controls: Set<SessionCapability> = [],
        capabilities: Set<SessionCapability> = [],
        customActions: [CustomAction] = [],
        queueIndex: Int? = nil,
        errorMessage: String? = nil,
        repeatMode: RepeatMode = .none,
        shuffle: Bool = false
    ) {
        self.status = status
        self.position = position
        self.bufferedPositionMs = bufferedPositionMs
        self.controls = controls
        self.capabilities = capabilities
        self.customActions = customActions
        self.queueIndex = queueIndex
        self.errorMessage = errorMessage
        self.repeatMode = repeatMode
        self.shuffle = shuffle
    }

    /// As synthesized, except that the two sets are written sorted: a set's order is its hash
    /// seed's, different in every process, so the persisted session would differ byte for byte
    /// between two saves of the same state.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(position, forKey: .position)
        try container.encodeIfPresent(bufferedPositionMs, forKey: .bufferedPositionMs)
        try container.encode(controls.sorted(), forKey: .controls)
        try container.encode(capabilities.sorted(), forKey: .capabilities)
        try container.encode(customActions, forKey: .customActions)
        try container.encodeIfPresent(queueIndex, forKey: .queueIndex)
        try container.encodeIfPresent(errorMessage, forKey: .errorMessage)
        try container.encode(repeatMode, forKey: .repeatMode)
        try container.encode(shuffle, forKey: .shuffle)
    }

    /// Whether the position moves on its own (only while playing).
    public var isAdvancing: Bool { status == .playing }

    /// The position at `instant`, clamped to 0…`durationMs` (0…∞ when the duration is unknown).
    public func projectedPositionMs(at instant: ClockInstant, durationMs: Int64?) -> Int64 {
        let projected = max(0, position.projectedMs(at: instant, advancing: isAdvancing))
        guard let durationMs else { return projected }
        return min(projected, max(0, durationMs))
    }

    /// A copy re-anchored at `instant` on its own projected position (same status and rate).
    public func reanchored(at instant: ClockInstant, durationMs: Int64?) -> PlaybackState {
        var copy = self
        copy.position = PositionAnchor(
            valueMs: projectedPositionMs(at: instant, durationMs: durationMs), at: instant, rate: position.rate)
        return copy
    }

    /// Whether `self` says nothing `previous` did not: every field equal except the anchor, and the
    /// anchor on `previous`'s projection (same rate, value within 1 ms). Such a state is not a
    /// discontinuity and is not broadcast.
    func isContinuation(of previous: PlaybackState) -> Bool {
        var aligned = self
        aligned.position = previous.position
        guard aligned == previous, position.rate == previous.position.rate else { return false }
        let expected = previous.position.projectedMs(at: position.at, advancing: previous.isAdvancing)
        let (difference, overflow) = expected.subtractingReportingOverflow(position.valueMs)
        return !overflow && difference.magnitude <= 1
    }
}

/// `value` rounded down to an `Int64`, saturating instead of trapping (NaN becomes 0).
func saturatingInt64(_ value: Double) -> Int64 {
    guard !value.isNaN else { return 0 }
    if value >= 0x1p63 { return .max }
    if value <= -0x1p63 { return .min }
    return Int64(value.rounded(.down))
}
