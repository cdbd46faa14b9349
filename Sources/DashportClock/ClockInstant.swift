/// A point on a ``DashportClock``'s monotonic time line, in milliseconds since the clock's origin.
///
/// Instants never go backwards and mean nothing across process restarts: persistence stores
/// positions projected to the write time, never instants. Millisecond resolution is what every
/// user needs (AAP carries milliseconds; browse, artwork and link budgets are tens of ms or more).
public struct ClockInstant: InstantProtocol, Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    public static let zero = ClockInstant(milliseconds: 0)

    /// The instant `offset` after the clock's origin (truncated to whole milliseconds).
    public init(sinceOrigin offset: Duration) {
        self.milliseconds = offset.wholeMilliseconds
    }

    /// How long after the clock's origin this instant is: the `now` the sans-IO link and services take.
    public var sinceOrigin: Duration { .milliseconds(milliseconds) }

    /// This instant moved by `ms` milliseconds (saturating instead of overflowing).
    public func advanced(byMs ms: Int64) -> ClockInstant {
        let (sum, overflow) = milliseconds.addingReportingOverflow(ms)
        return ClockInstant(milliseconds: overflow ? (ms > 0 ? .max : .min) : sum)
    }

    /// Milliseconds from `earlier` to this instant (negative when `earlier` is later; saturating).
    public func milliseconds(since earlier: ClockInstant) -> Int64 {
        let (difference, overflow) = milliseconds.subtractingReportingOverflow(earlier.milliseconds)
        return overflow ? (earlier.milliseconds < 0 ? .max : .min) : difference
    }

    // MARK: InstantProtocol

    public func advanced(by duration: Duration) -> ClockInstant {
        advanced(byMs: duration.wholeMilliseconds)
    }

    public func duration(to other: ClockInstant) -> Duration {
        .milliseconds(other.milliseconds(since: self))
    }

    public static func < (a: ClockInstant, b: ClockInstant) -> Bool { a.milliseconds < b.milliseconds }

    public static func + (instant: ClockInstant, duration: Duration) -> ClockInstant { instant.advanced(by: duration) }
    public static func - (instant: ClockInstant, duration: Duration) -> ClockInstant { instant.advanced(by: .zero - duration) }
    public static func - (later: ClockInstant, earlier: ClockInstant) -> Duration { earlier.duration(to: later) }

    public var description: String { "t+\(milliseconds)ms" }
}

extension Duration {
    /// Whole milliseconds, truncated toward zero and saturating at the bounds of `Int64`.
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds > 0 ? .max : .min }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return overflow2 ? (seconds > 0 ? .max : .min) : sum
    }
}
