import Synchronization
import DashportSession

/// Runs one car's requests to the core actors and posts each answer back into the car's input
/// stream. Commands run one at a time in the order the car sent them (two quick presses must not
/// swap); browse and artwork requests run concurrently. `stop()` cancels whatever is pending.
///
/// A connected car holds no task of its own here while it is idle (issue 10: a task keeps its
/// largest async frame for life, 2–7 KiB each): commands are run by a task that exists only
/// while commands are queued, and core pushes reach the car through handlers the core calls
/// (``attach(_:)``), not through a task per subscription waiting on a stream.
///
/// **Fair to the other cars**: at most ``maxConcurrentRequests`` of this car's requests run at
/// once; the rest wait here, in order, and start as earlier ones finish. A car keeping 32 searches
/// in flight on the largest catalog then competes with another car's one search as 4 to 1, not
/// 32 to 1 (issue 23 item 4). Commands and subscriptions are not held back by requests.
final class CoreBridge: Sendable {
    /// This car's requests running at once; the rest queue (each service caps what it has in flight).
    static let maxConcurrentRequests = 4

    /// How a push subscription is ended.
    typealias Unsubscribe = @Sendable () async -> Void

    private struct State {
        var next: UInt64 = 0
        var running: [UInt64: Task<Void, Never>] = [:]
        var stopped = false
        /// Commands waiting for the ones before them, oldest first.
        var commands: [@Sendable () async -> Void] = []
        /// Whether a task is running ``commands`` now.
        var draining = false
        /// Push subscriptions to end at ``stop()``.
        var unsubscribes: [Unsubscribe] = []
        /// Requests running now, and those waiting for a place, oldest first.
        var requestsRunning = 0
        var requestsWaiting: [@Sendable () async -> ServiceInput?] = []
        var waitingHead = 0
    }

    let inputs: CarMailbox
    private let state = Mutex(State())

    init(inputs: CarMailbox) {
        self.inputs = inputs
    }

    /// Performs `command` on the session after every earlier command of this car, then posts
    /// `answer(result)`.
    func perform(
        _ command: SessionCommand, from source: CommandSource, on session: SessionCore,
        answer: @escaping @Sendable (CommandResult) -> ServiceInput
    ) {
        let inputs = self.inputs
        let startDraining = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.commands.append {
                let result = await session.perform(command, from: source)
                inputs.yield(.services(answer(result)))
            }
            defer { state.draining = true }
            return !state.draining
        }
        guard startDraining else { return }
        run { [self] in
            while !Task.isCancelled, let next = nextCommand() { await next() }
            return nil
        }
    }

    /// The oldest queued command, or nil (and the draining task ends) when there is none.
    private func nextCommand() -> (@Sendable () async -> Void)? {
        state.withLock { state in
            guard !state.stopped, !state.commands.isEmpty else {
                state.draining = false
                return nil
            }
            return state.commands.removeFirst()
        }
    }

    /// Subscribes the car to a core push: `subscribe` runs once, in a short task, with the
    /// handler that posts into the car's mailbox (and returns false once the car is gone, so the
    /// core drops it even before it is unsubscribed); it returns how to unsubscribe, which
    /// ``stop()`` does.
    func attach(_ subscribe: @escaping @Sendable (_ post: @escaping @Sendable (ServiceInput) -> Bool) async -> Unsubscribe) {
        let inputs = self.inputs
        run { [self] in
            let unsubscribe = await subscribe { inputs.yield(.services($0)) }
            let late = state.withLock { state -> Bool in
                if state.stopped { return true }
                state.unsubscribes.append(unsubscribe)
                return false
            }
            if late { await unsubscribe() }
            return nil
        }
    }

    /// Runs `work` concurrently and posts what it returns (nothing when cancelled).
    func run(_ work: @escaping @Sendable () async -> ServiceInput?) {
        let inputs = self.inputs
        state.withLock { state in
            guard !state.stopped else { return }
            state.next += 1
            let id = state.next
            state.running[id] = Task { [weak self] in
                if let input = await work(), !Task.isCancelled { inputs.yield(.services(input)) }
                self?.finished(id)
            }
        }
    }

    /// A request of this car's (a browse, a search, a cover): run like ``run(_:)`` when fewer than
    /// ``maxConcurrentRequests`` are running, else queued behind them.
    func request(_ work: @escaping @Sendable () async -> ServiceInput?) {
        let start = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            guard state.requestsRunning < Self.maxConcurrentRequests else {
                state.requestsWaiting.append(work)
                return false
            }
            state.requestsRunning += 1
            return true
        }
        if start { runRequest(work) }
    }

    private func runRequest(_ work: @escaping @Sendable () async -> ServiceInput?) {
        run { [self] in
            let input = await work()
            if let next = requestDone() { runRequest(next) }
            return input
        }
    }

    /// One request finished: the next waiting one, which takes its place.
    private func requestDone() -> (@Sendable () async -> ServiceInput?)? {
        state.withLock { state in
            guard !state.stopped, state.waitingHead < state.requestsWaiting.count else {
                state.requestsRunning -= 1
                return nil
            }
            let next = state.requestsWaiting[state.waitingHead]
            state.waitingHead += 1
            if state.waitingHead == state.requestsWaiting.count {
                state.requestsWaiting = []
                state.waitingHead = 0
            }
            return next
        }
    }

    /// Requests waiting for a place (a test seam).
    var waitingRequests: Int { state.withLock { $0.requestsWaiting.count - $0.waitingHead } }

    /// Posts an input to the car's stream now.
    func post(_ input: ServiceInput) {
        inputs.yield(.services(input))
    }

    private func finished(_ id: UInt64) {
        state.withLock { state in
            state.running[id] = nil
            if state.running.isEmpty { state.running = [:] }  // an emptied dictionary keeps its capacity
        }
    }

    /// Tasks running now (requests in flight, a command queue being drained, subscriptions being set up).
    var pendingCount: Int { state.withLock { $0.running.count } }

    /// Cancels what is running, drops queued commands and ends the push subscriptions (in one
    /// short task, since the core is an actor).
    func stop() {
        let (running, unsubscribes) = state.withLock { state -> ([Task<Void, Never>], [Unsubscribe]) in
            state.stopped = true
            state.commands.removeAll()
            state.requestsWaiting = []
            state.waitingHead = 0
            defer {
                state.running.removeAll()
                state.unsubscribes.removeAll()
            }
            return (Array(state.running.values), state.unsubscribes)
        }
        running.forEach { $0.cancel() }
        if !unsubscribes.isEmpty {
            Task {
                for unsubscribe in unsubscribes { await unsubscribe() }
            }
        }
    }
}
