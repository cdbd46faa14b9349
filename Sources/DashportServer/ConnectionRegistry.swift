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
    }

    struct Entry: Sendable {
        var peer: String
        var shutdown: @Sendable () -> Void
        var car: ConnectedCar
        var mailbox: CarMailbox?
    }

    private let state = Mutex(State())
    private let (drained, drainedContinuation) = AsyncStream.makeStream(of: Void.self)

    /// Registers a car; `shutdown` is called (once) when the server stops. Returns nil when the
    /// server is already shutting down (the caller closes the connection at once).
    func add(peer: String, mailbox: CarMailbox? = nil, shutdown: @escaping @Sendable () -> Void) -> UInt64? {
        state.withLock { state -> UInt64? in
            guard !state.shuttingDown else { return nil }
            state.next += 1
            state.entries[state.next] = Entry(
                peer: peer, shutdown: shutdown,
                car: ConnectedCar(id: state.next, peer: peer, transport: "tcp", since: Date()), mailbox: mailbox)
            return state.next
        }
    }

    func remove(_ id: UInt64) {
        let (drained, idle) = state.withLock { state -> (Bool, Bool) in
            state.entries[id] = nil
            return (state.shuttingDown && state.entries.isEmpty, state.entries.isEmpty)
        }
        if drained { drainedContinuation.yield() }
        // The last car left: give what their connections freed back to the system. glibc keeps
        // freed pages in its arenas, and the next cars' allocations do not reuse all of them, so
        // without this every wave of cars left RssAnon a few MiB higher (issue 10: +8.4 MiB after
        // 500 cars left and 500 others came). Only when idle, so no car waits on the trim.
        if idle { _ = cdashport_release_free_memory() }
    }

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
