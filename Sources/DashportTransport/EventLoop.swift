// The reactor: one epoll thread that owns every transport socket.
//
// Why a dedicated reactor thread:
// - Dashport serves hundreds of cars at once on a 2-core machine (a Pi Zero 2 in the car). Swift's
//   cooperative pool has one thread per core, i.e. 2 here: one blocking `recv` on it would stall
//   every task in the process. So no socket call ever runs on a Swift concurrency thread; they all
//   run here. A writer on another thread only queues its bytes and asks the loop to flush them
//   (one eventfd wake per batch); ``socketCallsOffReactor`` lets tests check the rule holds.
// - Thread-per-connection is the simplest and, for a handful of peers, the fastest structure
//   (swift-linux-recipes.md §6: 73k vs 64k loopback round trips/s for one epoll thread), but
//   hundreds of threads with their stacks do not fit the memory budget. One epoll thread serves
//   any number of sockets in constant threads, at a measured ~12% cost on one connection.
// - DispatchSource per connection measured slowest (39k/s) and forces `@unchecked Sendable`.
//
// Shape: sockets are registered edge-triggered (EPOLLET) for input and output once, so pausing a
// connection's reading (read on demand) is just not reading it, and resuming is a poll. A source that still has input after its read budget is polled
// again on the next turn without waiting, so one busy peer cannot starve the others. Other threads
// hand the loop work (closures, timers, polls) through a mutex-protected inbox and an eventfd.
import CDashportLinux
import DashportThread
import FoundationEssentials
import Glibc
import Synchronization

/// Something registered with the reactor: a listening socket or a connection.
protocol Selectable: AnyObject, Sendable {
    /// Called on the reactor thread with the epoll event mask. `scratch` is the reactor's read buffer,
    /// valid only during the call. Returns true when input is still pending (read budget spent).
    func handleEvents(_ events: UInt32, scratch: UnsafeMutableRawBufferPointer) -> Bool
}

/// A cancellable timer on an ``EventLoop``.
public struct TimerHandle: Sendable {
    let loop: EventLoop
    let id: UInt64

    /// Cancels the timer; does nothing if it already fired.
    public func cancel() { loop.cancelTimer(id) }
}

/// One epoll reactor thread (see the comment at the top of this file for why).
///
/// Connections and listeners register here; their event handlers run on this thread. Other threads
/// may ``execute(_:)`` closures on it and ``scheduleTimer(after:_:)``. A loop's thread runs until the
/// process exits: use ``shared`` (started on first use) and keep test loops few.
public final class EventLoop: Sendable {
    /// The process-wide reactor, started on first use.
    public static let shared: EventLoop = {
        do {
            return try EventLoop(name: "dashport-reactor")
        } catch {
            // Without its reactor the process cannot move a byte; this only fails when the process is
            // out of file descriptors or memory at startup.
            fatalError("DashportTransport: cannot start the reactor: \(error)")
        }
    }()

    /// Bytes read per `recv`; each ``TransportEvent/received(_:)`` carries at most this many.
    static let readChunkSize = 64 * 1024
    /// Reads per connection per turn before the loop moves on to other ready sockets.
    static let readsPerTurn = 4

    static let edgeTriggered = EPOLLET.rawValue
    static let input = EPOLLIN.rawValue
    static let output = EPOLLOUT.rawValue
    static let hangUp = EPOLLHUP.rawValue | EPOLLRDHUP.rawValue | EPOLLERR.rawValue

    let epollFD: Int32
    let wakeFD: Int32
    let sources = Mutex<[UInt64: any Selectable]>([:])
    /// Registration ids; 0 is the wakeup eventfd.
    private let nextID = Atomic<UInt64>(1)
    let inbox = Mutex(Inbox())
    /// `pthread_self()` of the reactor thread, 0 until it runs.
    let threadID = Atomic<UInt>(0)
    /// True while the loop runs jobs of tasks that prefer it: their writes are flushed together
    /// after the batch rather than one `send` each.
    let runningJobs = Atomic<Bool>(false)
    /// Socket calls made by a connection off its reactor thread (see ``socketCallsOffReactor``).
    private static let offReactorCalls = Atomic<Int>(0)

    struct Inbox {
        var work: [@Sendable () -> Void] = []
        var polls: [(id: UInt64, events: UInt32)] = []
        /// Jobs of tasks that prefer this loop as their executor (``enqueue(_:)``).
        var jobs: [UnownedJob] = []
        /// Sorted by deadline, then by id (scheduling order).
        var timers: [PendingTimer] = []
        var nextTimerID: UInt64 = 1
        /// The eventfd was written and the loop has not drained it yet.
        var wakePending = false

        var isEmpty: Bool { work.isEmpty && polls.isEmpty && jobs.isEmpty }

        /// True when the caller must write the eventfd (nobody has since the loop last drained it).
        /// Never on the loop's own thread: it drains the inbox before it sleeps.
        mutating func takeWakeup(onLoop: Bool) -> Bool {
            if onLoop || wakePending { return false }
            wakePending = true
            return true
        }
    }

    struct PendingTimer {
        var deadline: ContinuousClock.Instant
        var id: UInt64
        var work: @Sendable () -> Void
    }

    /// Starts a new reactor thread. For tests and tools; servers use ``shared``.
    public init(name: String = "dashport-reactor") throws(TransportError) {
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw .io("epoll_create1: \(errnoText(errno))") }
        let wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFD >= 0 else {
            let code = errno
            Glibc.close(epollFD)
            throw .io("eventfd: \(errnoText(code))")
        }
        var event = epoll_event()
        event.events = EventLoop.input
        event.data.u64 = 0
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event) == 0 else {
            let code = errno
            Glibc.close(wakeFD)
            Glibc.close(epollFD)
            throw .io("epoll_ctl(eventfd): \(errnoText(code))")
        }
        self.epollFD = epollFD
        self.wakeFD = wakeFD
        OSThread.start(name: name) { [self] in self.run() }
    }

    /// Runs `work` on the reactor thread, after the events being handled now. Never blocks.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        let onLoop = isCurrentThread
        let wake = inbox.withLock { inbox in
            inbox.work.append(work)
            return inbox.takeWakeup(onLoop: onLoop)
        }
        if wake { signal() }
    }

    /// Runs `work` on the reactor thread once `delay` has passed, unless cancelled first.
    @discardableResult
    public func scheduleTimer(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> TimerHandle {
        let deadline = ContinuousClock.now.advanced(by: delay)
        let (id, wake) = inbox.withLock { inbox in
            let id = inbox.nextTimerID
            inbox.nextTimerID += 1
            let index = inbox.timers.firstIndex { $0.deadline > deadline } ?? inbox.timers.endIndex
            inbox.timers.insert(PendingTimer(deadline: deadline, id: id, work: work), at: index)
            // Only a new earliest deadline changes how long the loop may sleep.
            return (id, index == 0 ? inbox.takeWakeup(onLoop: false) : false)
        }
        if wake { signal() }
        return TimerHandle(loop: self, id: id)
    }

    func cancelTimer(_ id: UInt64) {
        inbox.withLock { $0.timers.removeAll { $0.id == id } }
    }

    /// True on this loop's reactor thread.
    public var isCurrentThread: Bool {
        threadID.load(ordering: .relaxed) == UInt(pthread_self())
    }

    /// How many socket calls (recv, send, shutdown, close) any connection made off its reactor
    /// thread since the process started. Always 0 unless the single-owner rule is broken: a test seam.
    public static var socketCallsOffReactor: Int { offReactorCalls.load(ordering: .relaxed) }

    /// Counts a socket call made off the reactor thread (the check costs one `pthread_self`).
    @inline(__always)
    func auditSocketCall() {
        if !isCurrentThread { EventLoop.offReactorCalls.add(1, ordering: .relaxed) }
    }

    /// Closes the connections sharing `budget` with the most bytes queued until the total is
    /// under its limit; at most one pass is queued at a time. The connections may be on any of the
    /// budget's reactors: one on another reactor gives its queued bytes back at once and is closed
    /// there (``TCPConnection/shed(_:)``).
    func shedOutbound(_ budget: OutboundBudget) {
        guard !budget.shedPending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        execute { [self] in
            budget.shedPending.store(false, ordering: .releasing)
            let loops = budget.reactors.isEmpty ? [self] : budget.reactors
            while budget.isOver {
                let candidates = loops.flatMap { loop in
                    loop.sources.withLock { $0.values.compactMap { $0 as? TCPConnection } }.filter { $0.budget === budget }
                }
                guard let largest = candidates.max(by: { $0.outboundBufferedBytes < $1.outboundBufferedBytes }),
                    largest.outboundBufferedBytes > 0
                else { return }
                largest.shed(.outboundBudgetExhausted(budget.limit))
            }
        }
    }

    // MARK: Registration (any thread)

    func makeID() -> UInt64 {
        nextID.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// Adds `fd` to epoll for `events`; the loop calls `source` with its events. Returns errno on failure.
    func register(_ source: any Selectable, id: UInt64, fd: Int32, events: UInt32) -> Int32? {
        sources.withLock { $0[id] = source }
        var event = epoll_event()
        event.events = events
        event.data.u64 = id
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else {
            let code = errno
            sources.withLock { _ = $0.removeValue(forKey: id) }
            return code
        }
        return nil
    }

    /// Removes `fd` from epoll and forgets its source. Call before closing `fd`, with the source's
    /// lock held, so the number cannot be reused in between.
    func deregister(id: UInt64, fd: Int32) {
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
        sources.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// Makes the loop call the source soon, as if epoll had reported `events` (edge-triggered epoll
    /// does not repeat an edge that arrived before the source could handle it).
    func poll(id: UInt64, events: UInt32) {
        let onLoop = isCurrentThread
        let wake = inbox.withLock { inbox in
            inbox.polls.append((id, events))
            return inbox.takeWakeup(onLoop: onLoop)
        }
        if wake { signal() }
    }

    /// Queues a job of a task that prefers this loop (see `EventLoop+TaskExecutor.swift`).
    func submit(_ job: UnownedJob) {
        let onLoop = isCurrentThread
        let wake = inbox.withLock { inbox in
            inbox.jobs.append(job)
            return inbox.takeWakeup(onLoop: onLoop)
        }
        if wake { signal() }
    }

    private func signal() {
        var one: UInt64 = 1
        _ = systemCall { Glibc.write(wakeFD, &one, 8) }
    }
}
