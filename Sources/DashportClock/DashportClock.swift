public import FoundationEssentials

/// Dashport's one time seam: every component that waits, times out or stamps time reads it here.
///
/// A Swift `Clock` (so `sleep(for:)`, `Task.sleep(until:clock:)` and friends work) whose instants are
/// ``ClockInstant``s, plus the two things Swift's protocol lacks: the wall time persisted sessions
/// record, and ``schedule(at:_:)`` for timers a test clock can run deterministically.
///
/// Production passes one ``SystemClock`` to the browse core, the artwork service, the session core
/// and every car connection (whose sans-IO link and services take `clock.now.sinceOrigin` as their
/// `now`). Tests pass `DashportTestSupport`'s `ManualClock` and move time by hand: nothing sleeps.
public protocol DashportClock: Clock, Sendable where Instant == ClockInstant {
    /// Wall-clock time, recorded in persisted sessions (never used for position arithmetic).
    func wallTime() -> Date
    /// Runs `action` once `deadline` has passed, unless the returned timer is cancelled first.
    ///
    /// The default sleeps in a task; the manual clock runs due actions inline in `advance(by:)`,
    /// which is what makes timer-driven behaviour deterministic in tests.
    func schedule(at deadline: ClockInstant, _ action: @escaping @Sendable () async -> Void) -> ClockTimer
    /// How long after the clock's origin it is now, finer than ``ClockInstant``'s milliseconds where
    /// the clock can tell: what the audio pump paces its packets on (a packet is due every
    /// 42.67 ms, and a millisecond floor made it run up to two milliseconds late).
    var preciseNow: Duration { get }
}

extension DashportClock {
    /// By default the instant itself: a clock that counts whole milliseconds is exact at them.
    public var preciseNow: Duration { now.sinceOrigin }

    /// Suspends until `deadline` has passed; throws `CancellationError` when the task is cancelled.
    public func sleep(until deadline: ClockInstant) async throws {
        try await sleep(until: deadline, tolerance: nil)
    }

    public func schedule(at deadline: ClockInstant, _ action: @escaping @Sendable () async -> Void) -> ClockTimer {
        let task = Task {
            do {
                try await sleep(until: deadline, tolerance: nil)
            } catch {
                return
            }
            guard !Task.isCancelled else { return }
            await action()
        }
        return ClockTimer { task.cancel() }
    }
}

/// A cancellable timer armed on a ``DashportClock``. Cancelling twice, or after it fired, does nothing.
public struct ClockTimer: Sendable {
    private let cancelAction: @Sendable () -> Void

    public init(cancel: @escaping @Sendable () -> Void) {
        self.cancelAction = cancel
    }

    public func cancel() { cancelAction() }
}
