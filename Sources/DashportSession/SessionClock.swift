import Foundation

/// A point on the session's monotonic time line, in milliseconds since the clock's origin.
///
/// Instants never go backwards and mean nothing across process restarts: persistence stores
/// positions projected to the write time, never instants.
public struct SessionInstant: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    public static let zero = SessionInstant(milliseconds: 0)

    /// This instant moved by `ms` milliseconds (saturating instead of overflowing).
    public func advanced(byMs ms: Int64) -> SessionInstant {
        let (sum, overflow) = milliseconds.addingReportingOverflow(ms)
        return SessionInstant(milliseconds: overflow ? (ms > 0 ? .max : .min) : sum)
    }

    /// Milliseconds from `earlier` to this instant (negative when `earlier` is later; saturating).
    public func milliseconds(since earlier: SessionInstant) -> Int64 {
        let (difference, overflow) = milliseconds.subtractingReportingOverflow(earlier.milliseconds)
        return overflow ? (earlier.milliseconds < 0 ? .max : .min) : difference
    }

    public static func < (a: SessionInstant, b: SessionInstant) -> Bool { a.milliseconds < b.milliseconds }

    public var description: String { "t+\(milliseconds)ms" }
}

/// A cancellable timer armed on a ``SessionClock``. Cancelling twice, or after it fired, does nothing.
public struct SessionTimer: Sendable {
    private let cancelAction: @Sendable () -> Void

    public init(cancel: @escaping @Sendable () -> Void) {
        self.cancelAction = cancel
    }

    public func cancel() { cancelAction() }
}

/// Where the session core, its timers and the default handler get the time from.
///
/// Injected so tests drive time by hand (``ManualClock``) and never sleep; the server uses
/// ``ContinuousSessionClock``.
public protocol SessionClock: Sendable {
    /// The current monotonic instant.
    func now() -> SessionInstant
    /// Suspends until `deadline` has passed; throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: SessionInstant) async throws
    /// Wall-clock time, recorded in persisted sessions (never used for position arithmetic).
    func wallTime() -> Date
    /// Runs `action` once `deadline` has passed, unless the returned timer is cancelled first.
    ///
    /// The default sleeps in a task; ``ManualClock`` runs due actions inline in `advance(by:)`, which
    /// is what makes timer-driven behaviour deterministic in tests.
    func schedule(at deadline: SessionInstant, _ action: @escaping @Sendable () async -> Void) -> SessionTimer
}

extension SessionClock {
    public func schedule(at deadline: SessionInstant, _ action: @escaping @Sendable () async -> Void) -> SessionTimer {
        let task = Task {
            do {
                try await sleep(until: deadline)
            } catch {
                return
            }
            guard !Task.isCancelled else { return }
            await action()
        }
        return SessionTimer { task.cancel() }
    }
}

/// The real clock: Swift's `ContinuousClock` (monotonic, keeps counting while the machine sleeps),
/// with instants measured from the moment this value was created.
public struct ContinuousSessionClock: SessionClock {
    private let origin: ContinuousClock.Instant

    public init() {
        self.origin = ContinuousClock.now
    }

    public func now() -> SessionInstant {
        SessionInstant(milliseconds: (ContinuousClock.now - origin).sessionMilliseconds)
    }

    public func sleep(until deadline: SessionInstant) async throws {
        try await Task.sleep(until: origin + .milliseconds(deadline.milliseconds), clock: .continuous)
    }

    public func wallTime() -> Date { Date() }
}

extension Duration {
    /// Whole milliseconds, truncated toward zero and saturating at the bounds of `Int64`.
    var sessionMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds > 0 ? .max : .min }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return overflow2 ? (seconds > 0 ? .max : .min) : sum
    }
}
