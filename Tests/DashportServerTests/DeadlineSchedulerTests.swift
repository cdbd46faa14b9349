import DashportClock
import DashportRandom
import DashportTestSupport
import Testing
@testable import DashportServer

/// Every car's wake-up from one timer (issue 10: no sleeping task per car).
@Suite("Deadline scheduler")
struct DeadlineSchedulerTests {
    @Test func carsAreTickedAtTheirDeadlinesInOrderFromOneSlotEach() async {
        let clock = ManualClock()
        let scheduler = DeadlineScheduler(clock: clock)
        let early = CarMailbox(stream: FakeStream())
        let late = CarMailbox(stream: FakeStream())
        var earlyTimer = DeadlineTimer(scheduler: scheduler, inputs: early)
        var lateTimer = DeadlineTimer(scheduler: scheduler, inputs: late)
        lateTimer.arm(at: .seconds(5))
        earlyTimer.arm(at: .seconds(3))
        // Re-arming moves the car's one deadline: still two entries, not three.
        lateTimer.arm(at: .seconds(4))
        #expect(scheduler.armedCount == 2)

        await clock.advance(by: .milliseconds(2_999))
        #expect(!early.isTickPending && !late.isTickPending)
        await clock.advance(by: .milliseconds(1))
        #expect(early.isTickPending && !late.isTickPending)
        await clock.advance(by: .seconds(1))
        #expect(late.isTickPending)
        #expect(scheduler.armedCount == 0)

        guard case .tick = await early.next() else {  // pending, so taken at once
            Issue.record("expected the tick")
            return
        }
        earlyTimer.fired()
        earlyTimer.arm(at: .seconds(10))
        #expect(scheduler.armedCount == 1)
        earlyTimer.cancel()
        #expect(scheduler.armedCount == 0)
        await clock.advance(by: .seconds(10))
        #expect(!early.isTickPending)
    }

    /// A deadline inside a millisecond waits for the end of it, so the `now` the car reads on its
    /// tick is never before its deadline.
    @Test func aDeadlineIsRoundedUpToTheClocksMillisecond() async {
        let clock = ManualClock()
        let scheduler = DeadlineScheduler(clock: clock)
        let mailbox = CarMailbox(stream: FakeStream())
        var timer = DeadlineTimer(scheduler: scheduler, inputs: mailbox)
        timer.arm(at: .milliseconds(1_500) + .microseconds(300))
        await clock.advance(by: .milliseconds(1_500))
        #expect(!mailbox.isTickPending)
        await clock.advance(by: .milliseconds(1))
        #expect(mailbox.isTickPending)
    }

    @Test func aDeadlineAlreadyPastTicksAtOnce() async {
        let clock = ManualClock()
        await clock.advance(by: .seconds(7))
        let scheduler = DeadlineScheduler(clock: clock)
        let mailbox = CarMailbox(stream: FakeStream())
        var timer = DeadlineTimer(scheduler: scheduler, inputs: mailbox)
        timer.arm(at: .seconds(6))
        #expect(mailbox.isTickPending)
        #expect(scheduler.armedCount == 0)
    }

    @Test func theHeapAlwaysYieldsTheEarliestDeadline() {
        var random = SplitMix64(seed: 10)
        var heap = DeadlineHeap()
        var model: [UInt64: Duration] = [:]
        for _ in 0..<5_000 {
            let slot = UInt64.random(in: 0..<64, using: &random)
            if Int.random(in: 0..<4, using: &random) == 0 {
                heap.remove(slot)
                model[slot] = nil
            } else {
                let deadline = Duration.milliseconds(Int64.random(in: 0..<10_000, using: &random))
                heap.set(slot, deadline)
                model[slot] = deadline
            }
            #expect(heap.count == model.count)
            #expect(heap.first?.deadline == model.values.min())
            if let first = heap.first { #expect(model[first.slot] == first.deadline) }
        }
        while let first = heap.first {
            #expect(first.deadline == model.values.min())
            heap.remove(first.slot)
            model[first.slot] = nil
        }
        #expect(model.isEmpty)
    }
}
