import DashportTestSupport
import DashportClock
import Synchronization
import Testing
import FoundationEssentials
@testable import DashportSession

@Suite struct ClockTests {
    final class Log: Sendable {
        let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    @Test func manualTimersRunInDeadlineOrderAtTheirOwnInstant() async {
        let clock = ManualClock()
        let log = Log()
        _ = clock.schedule(at: ClockInstant(milliseconds: 300)) { log.add("c@\(clock.now.milliseconds)") }
        _ = clock.schedule(at: ClockInstant(milliseconds: 100)) { log.add("a@\(clock.now.milliseconds)") }
        _ = clock.schedule(at: ClockInstant(milliseconds: 100)) { log.add("b@\(clock.now.milliseconds)") }
        _ = clock.schedule(at: ClockInstant(milliseconds: 900)) { log.add("late") }
        await clock.advance(by: .milliseconds(500))
        #expect(log.all == ["a@100", "b@100", "c@300"])
        #expect(clock.now == ClockInstant(milliseconds: 500))
        #expect(clock.pendingTimerCount == 1)
        #expect(clock.nextDeadline == ClockInstant(milliseconds: 900))
    }

    @Test func aTimerArmedByATimerRunsInTheSameAdvanceWhenDue() async {
        let clock = ManualClock()
        let log = Log()
        _ = clock.schedule(at: ClockInstant(milliseconds: 100)) {
            log.add("first")
            _ = clock.schedule(at: clock.now.advanced(byMs: 100)) { log.add("second@\(clock.now.milliseconds)") }
        }
        await clock.advance(by: .milliseconds(250))
        #expect(log.all == ["first", "second@200"])
    }

    @Test func aCancelledTimerNeverRuns() async {
        let clock = ManualClock()
        let log = Log()
        let timer = clock.schedule(at: ClockInstant(milliseconds: 10)) { log.add("ran") }
        timer.cancel()
        timer.cancel()
        await clock.advance(by: .seconds(1))
        #expect(log.all.isEmpty)
        #expect(clock.pendingTimerCount == 0)
    }

    @Test func manualSleepersWakeWhenTimePasses() async throws {
        let clock = ManualClock()
        async let woke: Void = clock.sleep(until: ClockInstant(milliseconds: 1000))
        await clock.advance(by: .seconds(1))
        try await woke
        #expect(clock.now == ClockInstant(milliseconds: 1000))
        try await clock.sleep(until: ClockInstant(milliseconds: 5))  // already past: returns at once
    }

    @Test func aCancelledSleeperThrows() async {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(until: ClockInstant(milliseconds: 1_000_000)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test func wallTimeFollowsManualTime() async {
        let clock = ManualClock()
        let start = clock.wallTime()
        await clock.advance(by: .milliseconds(1500))
        #expect(clock.wallTime().timeIntervalSince(start) == 1.5)
    }

    @Test func theContinuousClockIsMonotonicAndSchedules() async {
        let clock = SystemClock()
        let first = clock.now
        let second = clock.now
        #expect(second >= first)
        try? await clock.sleep(until: first)  // a deadline already reached returns
        // A deadline already reached: the action runs without waiting (this would hang otherwise).
        await withCheckedContinuation { continuation in
            _ = clock.schedule(at: first) { continuation.resume() }
        }
    }

    @Test func instantArithmeticSaturates() {
        #expect(ClockInstant(milliseconds: .max - 1).advanced(byMs: 10) == ClockInstant(milliseconds: .max))
        #expect(ClockInstant(milliseconds: .min + 1).advanced(byMs: -10) == ClockInstant(milliseconds: .min))
        #expect(ClockInstant(milliseconds: .max).milliseconds(since: ClockInstant(milliseconds: -10)) == .max)
        #expect(ClockInstant(milliseconds: 30).milliseconds(since: ClockInstant(milliseconds: 10)) == 20)
        #expect(saturatingInt64(.nan) == 0)
        #expect(saturatingInt64(1e300) == .max)
        #expect(
            PositionAnchor(valueMs: .max - 5, at: .zero, rate: 16).projectedMs(at: ClockInstant(milliseconds: .max), advancing: true)
                == .max)
    }
}
