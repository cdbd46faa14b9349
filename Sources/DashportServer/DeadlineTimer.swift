import DashportClock

/// One pending wake-up for a car connection's task: a child task that sleeps on the server's clock
/// until the earliest deadline of the link and the services, then yields `.tick`. Deadlines are
/// durations since the clock's origin (the link's `now`). Re-arming with the same deadline keeps
/// the current sleep.
struct DeadlineTimer {
    let clock: any DashportClock
    let inputs: CarMailbox
    private var armedAt: Duration?
    private var task: Task<Void, Never>?

    init(clock: any DashportClock, inputs: CarMailbox) {
        self.clock = clock
        self.inputs = inputs
    }

    mutating func arm(at deadline: Duration?) {
        guard deadline != armedAt else { return }
        task?.cancel()
        armedAt = deadline
        guard let deadline else {
            task = nil
            return
        }
        // Rounded up to the clock's millisecond, so the `now` read on waking is never before it.
        let wake = ClockInstant(sinceOrigin: deadline + .nanoseconds(999_999))
        task = Task { [clock, inputs] in
            do { try await clock.sleep(until: wake) } catch { return }
            inputs.yield(.tick)
        }
    }

    /// The sleep ended: the next `arm` starts a new one even for an unchanged deadline.
    mutating func fired() {
        armedAt = nil
        task = nil
    }

    mutating func cancel() {
        task?.cancel()
        task = nil
    }
}
