public import DashportClock
public import Foundation
import Synchronization

/// The one clock that moves only when told to: every test that involves time uses it.
///
/// Timers armed with ``schedule(at:_:)`` run inline, in deadline order (ties in the order they were
/// armed), inside ``advance(by:)``, each one awaited before the next; when `advance` returns, every
/// timer that was due, and every timer those armed that was also due, has finished. `now` reads
/// each timer's own deadline while it runs. Tasks suspended in `sleep(until:)` are resumed too, but
/// they then run concurrently, so a test that needs to know the code under test is waiting first
/// calls ``waitForSleeper(dueAt:)``.
public final class ManualClock: DashportClock {
    private struct Scheduled {
        var id: UInt64
        var deadline: ClockInstant
        var action: @Sendable () async -> Void
    }

    private enum Sleeper {
        case pending
        case waiting(ClockInstant, CheckedContinuation<Void, any Error>)
        case cancelled
    }

    private struct State {
        var now: ClockInstant
        var nextId: UInt64 = 0
        var timers: [Scheduled] = []
        var sleepers: [UInt64: Sleeper] = [:]
        var watchers: [(deadline: ClockInstant, continuation: CheckedContinuation<Void, Never>)] = []

        /// Watchers whose deadline some sleeper now waits for, removed from the list.
        mutating func readyWatchers() -> [CheckedContinuation<Void, Never>] {
            let waiting = Set(
                sleepers.values.compactMap { sleeper -> ClockInstant? in
                    if case .waiting(let deadline, _) = sleeper { return deadline }
                    return nil
                })
            let ready = watchers.filter { waiting.contains($0.deadline) }.map(\.continuation)
            watchers.removeAll { waiting.contains($0.deadline) }
            return ready
        }
    }

    private let state: Mutex<State>
    private let wallOrigin: Date

    /// A clock at `start`, whose wall time is `wallOrigin` plus the time advanced since.
    public init(start: ClockInstant = .zero, wallOrigin: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        self.state = Mutex(State(now: start))
        self.wallOrigin = wallOrigin
    }

    public var now: ClockInstant { state.withLock { $0.now } }

    public var minimumResolution: Duration { .milliseconds(1) }

    public func wallTime() -> Date {
        wallOrigin.addingTimeInterval(Double(now.milliseconds) / 1000)
    }

    /// How many scheduled timers have neither fired nor been cancelled.
    public var pendingTimerCount: Int { state.withLock { $0.timers.count } }

    /// The earliest deadline among pending timers, if any.
    public var nextDeadline: ClockInstant? { state.withLock { $0.timers.map(\.deadline).min() } }

    public func schedule(at deadline: ClockInstant, _ action: @escaping @Sendable () async -> Void) -> ClockTimer {
        let id = state.withLock { state in
            state.nextId += 1
            state.timers.append(Scheduled(id: state.nextId, deadline: deadline, action: action))
            return state.nextId
        }
        return ClockTimer { [weak self] in
            self?.state.withLock { $0.timers.removeAll { $0.id == id } }
        }
    }

    /// Moves time forward by `duration`, running every timer that falls due on the way and waking
    /// every sleeper whose deadline has come.
    public func advance(by duration: Duration) async {
        let target = now.advanced(byMs: max(0, duration.wholeMilliseconds))
        while let due = takeEarliestTimer(notAfter: target) {
            await due.action()
        }
        state.withLock { state in
            if state.now < target { state.now = target }
            Self.resumeDueSleepers(&state)
        }
    }

    /// Returns once something sleeps until `offset` after the origin on this clock.
    public func waitForSleeper(dueAt offset: Duration) async {
        let deadline = ClockInstant(sinceOrigin: offset)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                let waiting = state.sleepers.values.contains { sleeper in
                    if case .waiting(let due, _) = sleeper { return due == deadline }
                    return false
                }
                if waiting { return true }
                state.watchers.append((deadline, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func takeEarliestTimer(notAfter target: ClockInstant) -> Scheduled? {
        state.withLock { state in
            let due = state.timers.enumerated().filter { $0.element.deadline <= target }
            guard let first = due.min(by: { ($0.element.deadline, $0.element.id) < ($1.element.deadline, $1.element.id) })
            else { return nil }
            state.timers.remove(at: first.offset)
            if state.now < first.element.deadline { state.now = first.element.deadline }
            Self.resumeDueSleepers(&state)
            return first.element
        }
    }

    public func sleep(until deadline: ClockInstant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            state.nextId += 1
            state.sleepers[state.nextId] = .pending
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                    if case .cancelled = state.sleepers[id] {
                        state.sleepers[id] = nil
                        continuation.resume(throwing: CancellationError())
                        return []
                    } else if deadline <= state.now {
                        state.sleepers[id] = nil
                        continuation.resume()
                        return []
                    } else {
                        state.sleepers[id] = .waiting(deadline, continuation)
                        return state.readyWatchers()
                    }
                }
                ready.forEach { $0.resume() }
            }
        } onCancel: {
            state.withLock { state in
                switch state.sleepers[id] {
                case .pending: state.sleepers[id] = .cancelled
                case .waiting(_, let continuation):
                    state.sleepers[id] = nil
                    continuation.resume(throwing: CancellationError())
                case .cancelled, nil: break
                }
            }
        }
    }

    private static func resumeDueSleepers(_ state: inout State) {
        for (id, sleeper) in state.sleepers {
            if case .waiting(let deadline, let continuation) = sleeper, deadline <= state.now {
                state.sleepers[id] = nil
                continuation.resume()
            }
        }
    }
}
