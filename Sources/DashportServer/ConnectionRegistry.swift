import CDashportLinux
import DashportClock
import FoundationEssentials
import Glibc
import Synchronization

/// The cars connected right now, so the server can count them and tell each to say BYEBYE on
/// shutdown. Thread-safe; entries are added and removed by each connection's own task.
final class ConnectionRegistry: Sendable {
    private struct State {
        var next: UInt64 = 0
        var entries: [UInt64: Entry] = [:]
        var shuttingDown = false
        /// Connection tasks that have ended (see ``connectionEnded()``).
        var ended = 0
        /// A trim is due once the server has been idle a moment (see ``connectionEnded()``).
        var idleTrimScheduled = false
    }

    /// Under load, malloc's free pages are given back after every this many connections end.
    static let trimEvery = 256
    /// When the server trims again while it stays idle, counted from the last car leaving (1, 5,
    /// 10, 20, 35 and 65 s). What the cars started frees its memory after they are gone: a
    /// request's timeout timer (a cancelled `Task.sleep` keeps its dispatch timer, and the job it
    /// holds, until the deadline it was set for: 10 s for a browse, 30 s for a cover, 60 s for
    /// some) lies among pages that are otherwise free, so a trim before it fires gives back less
    /// (a 100-car soak: 3.1 MiB more given back by a trim a minute after the last car left than
    /// by the trims at 0 and 1 s, and 1.4 MiB more than by the trims up to 35 s).
    static let idleTrimDelays: [Duration] = [.seconds(1), .seconds(4), .seconds(5), .seconds(10), .seconds(15), .seconds(30)]

    struct Entry: Sendable {
        var peer: String
        var shutdown: @Sendable () -> Void
        var car: ConnectedCar
        var mailbox: CarMailbox?
    }

    private let state = Mutex(State())
    private let (drained, drainedContinuation) = AsyncStream.makeStream(of: Void.self)
    /// Empties the malloc caches of the server's long-lived threads before each idle trim (see
    /// ``connectionEnded()``); the server's runs on the reactor, where the cars' workers run.
    private let releaseThreadCaches: @Sendable () async -> Void

    init(releaseThreadCaches: @escaping @Sendable () async -> Void = {}) {
        self.releaseThreadCaches = releaseThreadCaches
    }

    /// Registers a car; `shutdown` is called (once) when the server stops. Returns nil when the
    /// server is already shutting down (the caller closes the connection at once).
    func add(peer: String, reactor: Int? = nil, mailbox: CarMailbox? = nil, shutdown: @escaping @Sendable () -> Void) -> UInt64? {
        state.withLock { state -> UInt64? in
            guard !state.shuttingDown else { return nil }
            state.next += 1
            state.entries[state.next] = Entry(
                peer: peer, shutdown: shutdown,
                car: ConnectedCar(id: state.next, peer: peer, transport: "tcp", since: Date(), reactor: reactor), mailbox: mailbox)
            return state.next
        }
    }

    func remove(_ id: UInt64) {
        let drained = state.withLock { state -> Bool in
            state.entries[id] = nil
            // A dictionary keeps its capacity when emptied: at rest, free what the crowd grew it to.
            if state.entries.isEmpty { state.entries = [:] }
            return state.shuttingDown && state.entries.isEmpty
        }
        if drained { drainedContinuation.yield() }
    }

    /// A car's connection task has returned: its link, TLS session, services and buffers are freed
    /// (``remove(_:)`` runs before that, inside the task). Gives malloc's free pages back to the
    /// system (malloc_trim) when this was the last car, again a moment later if the server is still
    /// idle (``idleTrimDelays``), and after every ``trimEvery`` connections under load.
    ///
    /// glibc keeps freed pages in its arenas and the next cars' allocations do not reuse all of
    /// them: without a trim at rest every wave of cars left RssAnon a few MiB higher (issue 10:
    /// +8.4 MiB after 500 cars left and 500 others came), and a trim when the registry emptied,
    /// before the last car's memory was freed, still left 10.6 MiB after a 10-minute soak of 100
    /// cars (issue 23, item 7). Under load a trim every 256 connections bounds what the arenas keep.
    ///
    /// Before each idle trim the long-lived threads' malloc caches are emptied
    /// (`releaseThreadCaches`): glibc's per-thread cache keeps up to 448 small freed blocks for
    /// the thread's next mallocs, malloc_trim leaves every page that holds one, and the reactor's
    /// (where the cars' workers run) held 446 blocks spread over the heap after a soak: the
    /// 1.7 MiB the idle server kept above what it held before.
    func connectionEnded() {
        let (periodic, idle, scheduleIdleTrim) = state.withLock { state -> (Bool, Bool, Bool) in
            state.ended &+= 1
            let idle = state.entries.isEmpty
            let schedule = idle && !state.idleTrimScheduled
            if schedule { state.idleTrimScheduled = true }
            return (state.ended % Self.trimEvery == 0, idle, schedule)
        }
        if periodic || idle { _ = cdashport_release_free_memory() }
        guard scheduleIdleTrim else { return }
        Task.detached { [self] in
            for delay in Self.idleTrimDelays {
                try? await Task.sleep(for: delay)
                let stillIdle = state.withLock { state -> Bool in
                    if !state.entries.isEmpty { state.idleTrimScheduled = false }
                    return state.entries.isEmpty
                }
                // A car came: the trims start again when the last one leaves.
                guard stillIdle else { return }
                await releaseThreadCaches()
                _ = cdashport_release_free_memory()
            }
            state.withLock { $0.idleTrimScheduled = false }
        }
    }

    /// Connection tasks that have ended so far (a test seam for the trims).
    var connectionsEnded: Int { state.withLock { $0.ended } }

    var count: Int { state.withLock { $0.entries.count } }

    /// Who is connected, oldest first (`dashport ctl cars`).
    var cars: [ConnectedCar] { state.withLock { $0.entries.values.map(\.car) }.sorted { $0.id < $1.id } }

    /// Updates what the registry knows of car `id` (its name once discovered, its kind).
    func update(_ id: UInt64, _ change: (inout ConnectedCar) -> Void) {
        state.withLock { state in
            guard var entry = state.entries[id] else { return }
            change(&entry.car)
            state.entries[id] = entry
        }
    }
    var peers: [String] { state.withLock { $0.entries.values.map(\.peer) } }

    /// Bytes received from all cars and not yet taken by their workers (a test seam for the
    /// inbound bound).
    var queuedInboundBytes: Int { mailboxes.reduce(0) { $0 + $1.queuedInboundBytes } }

    /// How many cars the server has stopped reading from (inbound back-pressure; a test seam).
    var readingPausedCount: Int { mailboxes.filter(\.isReadingPaused).count }

    /// One line per connected car: its peer, mailbox and transport state (for a test that timed out).
    var diagnostics: [String] {
        state.withLock { $0.entries.values.map { ($0.peer, $0.mailbox) } }.map { peer, mailbox in
            "\(peer): " + (mailbox?.debugState ?? "no mailbox")
        }
    }

    private var mailboxes: [CarMailbox] { state.withLock { $0.entries.values.compactMap(\.mailbox) } }

    /// Asks every car to end its session and returns once all are gone or `grace` has passed.
    /// Returns how many were still connected at the end.
    func shutdownAll(grace: Duration, clock: any DashportClock) async -> Int {
        let entries = state.withLock { state -> [Entry] in
            state.shuttingDown = true
            return Array(state.entries.values)
        }
        entries.forEach { $0.shutdown() }
        if entries.isEmpty { return 0 }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [drained] in
                for await _ in drained { return }
            }
            group.addTask { try? await clock.sleep(for: grace) }
            await group.next()
            group.cancelAll()
        }
        return count
    }
}
