/// The one pending wake-up of a car connection's worker: its slot in the server's
/// ``DeadlineScheduler``, which posts `.tick` into the car's mailbox once the earliest deadline of
/// the link and the services has passed. Deadlines are durations since the clock's origin (the
/// link's `now`). Re-arming with the same deadline keeps the current one; the car holds no task
/// and no sleep of its own.
struct DeadlineTimer {
    let scheduler: DeadlineScheduler
    let inputs: CarMailbox
    private let slot: UInt64
    private var armedAt: Duration?

    init(scheduler: DeadlineScheduler, inputs: CarMailbox) {
        self.scheduler = scheduler
        self.inputs = inputs
        self.slot = scheduler.makeSlot()
    }

    mutating func arm(at deadline: Duration?) {
        guard deadline != armedAt else { return }
        armedAt = deadline
        scheduler.arm(slot, at: deadline, inputs: inputs)
    }

    /// The tick came: the next `arm` arms again even for an unchanged deadline.
    mutating func fired() {
        armedAt = nil
    }

    mutating func cancel() {
        armedAt = nil
        scheduler.arm(slot, at: nil, inputs: inputs)
    }
}
