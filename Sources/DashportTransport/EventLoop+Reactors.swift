// More than one reactor: the process-wide set a server spreads its cars over (issue 22, item 1).
//
// Why a fixed set, started on first use and kept: a reactor's thread runs until the process exits
// (its sockets, timers and jobs have no other owner), so a server that stopped cannot take its
// reactors with it. Every server in the process (tests start hundreds) draws from the same few:
// ``shared`` is reactor 0 and the others are started the first time a server asks for that many.
//
// Why at most ``maxReactors``: each reactor is a thread with a 64 KiB read buffer and an epoll
// instance; past the cores it only adds context switches. Eight covers the machines Dashport runs
// on (a Pi has four cores, this machine two) with room to measure.
import Glibc
import Synchronization

extension EventLoop {
    /// The most reactors a server may run (`dashport serve --reactors`).
    public static let maxReactors = 8

    /// One reactor per online core (`sysconf(_SC_NPROCESSORS_ONLN)`), at most ``maxReactors``:
    /// what `dashport serve` runs unless `--reactors` says otherwise.
    public static var defaultReactorCount: Int {
        min(max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))), maxReactors)
    }

    /// The extra reactors started so far; reactor 0 is ``shared``.
    private static let extraReactors = Mutex<[EventLoop]>([])

    /// The first `count` process-wide reactors (clamped to 1…``maxReactors``): ``shared`` first,
    /// then `dashport-reactor-1`, … each started the first time it is asked for and kept for the
    /// life of the process.
    public static func reactors(_ count: Int) -> [EventLoop] {
        let count = min(max(count, 1), maxReactors)
        let extra = extraReactors.withLock { extra -> [EventLoop] in
            while extra.count < count - 1 {
                do {
                    extra.append(try EventLoop(name: "dashport-reactor-\(extra.count + 1)"))
                } catch {
                    // As for `shared`: only when the process is out of descriptors or memory.
                    fatalError("DashportTransport: cannot start reactor \(extra.count + 1): \(error)")
                }
            }
            return Array(extra.prefix(count - 1))
        }
        return [shared] + extra
    }
}

/// Which reactor an accepted connection goes to: the one serving the fewest connections of this
/// listener now, the next one after the last choice on a tie (so equal loads take turns).
///
/// Least-loaded rather than plain round-robin: cars come and go, and a round-robin that ignores
/// who left would pile the long-lived cars on one reactor after a wave of short ones. Thread-safe:
/// the choice is made on the listener's reactor, the release wherever the connection finishes.
final class ReactorBalancer: Sendable {
    let loops: [EventLoop]
    private let state: Mutex<State>

    private struct State {
        var connections: [Int]
        var last = -1
    }

    init(loops: [EventLoop]) {
        self.loops = loops
        self.state = Mutex(State(connections: Array(repeating: 0, count: loops.count)))
    }

    /// Picks a reactor for a new connection and counts it there.
    func choose() -> Int {
        state.withLock { state in
            let count = state.connections.count
            var best = (state.last + 1) % count
            for step in 1..<max(count, 1) {
                let index = (state.last + 1 + step) % count
                if state.connections[index] < state.connections[best] { best = index }
            }
            state.connections[best] += 1
            state.last = best
            return best
        }
    }

    /// A connection on reactor `index` has finished.
    func release(_ index: Int) {
        state.withLock { $0.connections[index] -= 1 }
    }

    /// Connections per reactor now.
    var connections: [Int] { state.withLock { $0.connections } }
}
