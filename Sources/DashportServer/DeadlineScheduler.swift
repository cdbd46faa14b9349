import DashportClock
import Synchronization

/// The wake-ups of every car connection's worker, from one timer on the server's clock instead of
/// a sleeping task per car.
///
/// Each car has one slot holding at most one deadline (a duration since the clock's origin, the
/// link's `now`). The scheduler keeps one clock timer armed at the earliest deadline of all; when
/// it fires, every car whose deadline has passed is posted a `.tick` and its slot is emptied, and
/// the timer is armed again for the next. Re-arming a slot moves its deadline in place, so a car
/// that re-arms on every message holds one entry, not one per message. Issue 10: a task per car,
/// sleeping, plus the sleeps its re-arming had cancelled (each held by the system's timer until
/// its deadline) cost about 3.5 KiB per connected car.
///
/// Deadlines are rounded up to the clock's millisecond when waking, so the `now` a car reads on
/// its tick is never before its deadline. One whose time has already come is posted at once.
final class DeadlineScheduler: Sendable {
    private struct State {
        var heap = DeadlineHeap()
        var mailboxes: [UInt64: CarMailbox] = [:]
        var nextSlot: UInt64 = 0
        /// The clock timer armed now, for when, and which arming it is (an older one that fires
        /// anyway is ignored).
        var timer: ClockTimer?
        var timerDeadline: Duration?
        var timerGeneration: UInt64 = 0
    }

    let clock: any DashportClock
    private let state = Mutex(State())

    init(clock: any DashportClock) {
        self.clock = clock
    }

    /// A new, empty slot for one car.
    func makeSlot() -> UInt64 {
        state.withLock { state in
            state.nextSlot += 1
            return state.nextSlot
        }
    }

    /// Posts `.tick` to `inputs` once `deadline` has passed, replacing the slot's earlier deadline;
    /// nil empties the slot.
    func arm(_ slot: UInt64, at deadline: Duration?, inputs: CarMailbox) {
        let now = clock.now.sinceOrigin
        let (dueNow, superseded) = state.withLock { state -> (Bool, ClockTimer?) in
            guard let deadline, Self.wake(deadline) > now else {
                state.heap.remove(slot)
                state.mailboxes[slot] = nil
                // A dictionary keeps its capacity when emptied: let go of what 500 cars grew.
                if state.mailboxes.isEmpty { state.mailboxes = [:] }
                return (deadline != nil, nil)
            }
            state.heap.set(slot, deadline)
            state.mailboxes[slot] = inputs
            return (false, armTimerLocked(&state))
        }
        superseded?.cancel()
        if dueNow { inputs.yield(.tick) }
    }

    /// Deadlines waiting now (a test seam).
    var armedCount: Int { state.withLock { $0.heap.count } }

    /// The instant a car waits for: its deadline rounded up to the clock's millisecond (the
    /// clock's instants are whole milliseconds).
    private static func wake(_ deadline: Duration) -> Duration {
        ClockInstant(sinceOrigin: deadline + .nanoseconds(999_999)).sinceOrigin
    }

    /// Arms the clock timer for the earliest deadline unless one is armed at or before it; returns
    /// the timer that one replaces, for the caller to cancel outside the lock. A timer armed for a
    /// deadline that has since gone is left: it fires, finds nothing due, and arms the next.
    private func armTimerLocked(_ state: inout State) -> ClockTimer? {
        guard let earliest = state.heap.first?.deadline else { return nil }
        if let armed = state.timerDeadline, armed <= earliest { return nil }
        let replaced = state.timer
        state.timerGeneration += 1
        let generation = state.timerGeneration
        state.timerDeadline = earliest
        state.timer = clock.schedule(at: ClockInstant(sinceOrigin: Self.wake(earliest))) { [weak self] in
            self?.fire(generation)
        }
        return replaced
    }

    private func fire(_ generation: UInt64) {
        let now = clock.now.sinceOrigin
        let due = state.withLock { state -> [CarMailbox] in
            guard generation == state.timerGeneration else { return [] }
            state.timer = nil
            state.timerDeadline = nil
            var due: [CarMailbox] = []
            while let first = state.heap.first, Self.wake(first.deadline) <= now {
                state.heap.remove(first.slot)
                if let mailbox = state.mailboxes.removeValue(forKey: first.slot) { due.append(mailbox) }
            }
            if state.mailboxes.isEmpty { state.mailboxes = [:] }
            _ = armTimerLocked(&state)  // none is armed now
            return due
        }
        for mailbox in due { mailbox.yield(.tick) }
    }
}

/// A binary min-heap of deadlines, at most one per slot, with each slot's position kept so a
/// deadline can be moved or removed in place (O(log n)).
struct DeadlineHeap {
    private(set) var entries: [(deadline: Duration, slot: UInt64)] = []
    private var positions: [UInt64: Int] = [:]

    var first: (deadline: Duration, slot: UInt64)? { entries.first }
    var count: Int { entries.count }

    /// Sets (adds or moves) `slot`'s deadline.
    mutating func set(_ slot: UInt64, _ deadline: Duration) {
        if let index = positions[slot] {
            let earlier = deadline < entries[index].deadline
            entries[index].deadline = deadline
            if earlier { siftUp(index) } else { siftDown(index) }
        } else {
            entries.append((deadline, slot))
            positions[slot] = entries.count - 1
            siftUp(entries.count - 1)
        }
    }

    /// Removes `slot`'s deadline, if it has one.
    mutating func remove(_ slot: UInt64) {
        guard let index = positions.removeValue(forKey: slot) else { return }
        let last = entries.count - 1
        if index != last {
            entries.swapAt(index, last)
            positions[entries[index].slot] = index
        }
        entries.removeLast()
        if index < entries.count {
            siftUp(index)
            siftDown(index)
        }
        if entries.isEmpty {  // an idle server keeps no room for a past crowd
            entries = []
            positions = [:]
        }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { return }
            swap(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            var smallest = parent
            let left = 2 * parent + 1
            let right = left + 1
            if left < entries.count && entries[left].deadline < entries[smallest].deadline { smallest = left }
            if right < entries.count && entries[right].deadline < entries[smallest].deadline { smallest = right }
            guard smallest != parent else { return }
            swap(parent, smallest)
            parent = smallest
        }
    }

    private mutating func swap(_ a: Int, _ b: Int) {
        entries.swapAt(a, b)
        positions[entries[a].slot] = a
        positions[entries[b].slot] = b
    }
}
