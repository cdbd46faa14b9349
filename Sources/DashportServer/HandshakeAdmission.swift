import DashportLog
import Synchronization

/// Keeps sockets that never finish the handshake from taking the cars' places.
///
/// A connection is *pending* from accept until the car's AUTH_COMPLETE (after the TLS handshake and
/// the peer-certificate check); then it is *linked*. Linked cars have their own `maxLinked` slots;
/// pending connections share a smaller budget, `maxPending`, of which one address may hold at most
/// `maxPendingPerAddress` (loopback excepted: every local process shares it). A new connection is always taken in: when its address is at its limit the
/// oldest pending connection *from that address* is closed, else when the budget is full the oldest
/// pending connection overall is. So idle or slow sockets can only push out each other, never a car
/// that finished its handshake, and a real car arriving during a flood is the newest, last in line
/// to be closed. Every socket counts against the listener's hard cap of `maxLinked + maxPending`.
///
/// ``admit(host:peer:abort:)`` runs on the reactor thread at accept, so a flood is trimmed as it
/// arrives, before any connection task runs. Thread-safe.
final class HandshakeAdmission: Sendable {
    struct Limits: Sendable, Hashable {
        var maxLinked: Int
        var maxPending: Int
        var maxPendingPerAddress: Int
        /// Whether `maxPendingPerAddress` applies to loopback hosts (127.0.0.0/8, ::1) too.
        var perAddressOnLoopback = false
    }

    /// What ``authenticated(_:)`` decided.
    enum Verdict: Sendable, Equatable {
        case linked
        /// `maxLinked` cars are linked already: the caller closes this one.
        case full(limit: Int)
        /// It was closed to make room before it got there; its close is under way.
        case gone
    }

    private struct Pending {
        var host: String
        var peer: String
        var abort: @Sendable () -> Void
    }

    private struct State {
        var next: UInt64 = 0
        /// Keyed by ticket: tickets grow, so the smallest is the oldest.
        var pending: [UInt64: Pending] = [:]
        var pendingPerHost: [String: Int] = [:]
        var linked: Set<UInt64> = []
        /// Closed to make room since the budget and every address were last at most half full
        /// (a flood is logged once when it starts and once when it is over).
        var evictedInFlood = 0
    }

    let limits: Limits
    private let logger: Logger
    private let state = Mutex(State())

    init(limits: Limits, logger: Logger) {
        self.limits = limits
        self.logger = logger
    }

    var pendingCount: Int { state.withLock { $0.pending.count } }
    var linkedCount: Int { state.withLock { $0.linked.count } }

    /// Takes a new connection in as pending and returns its ticket; closes (with `abort`, outside the
    /// lock) the pending connection it displaces, if any.
    func admit(host: String, peer: String, abort: @escaping @Sendable () -> Void) -> UInt64 {
        let (ticket, evicted, why, firstInFlood) = state.withLock { state -> (UInt64, Pending?, String, Bool) in
            state.next += 1
            let ticket = state.next
            var victim: UInt64?
            var why = ""
            if limits.perAddressOnLoopback || !Self.isLoopback(host),
                state.pendingPerHost[host, default: 0] >= limits.maxPendingPerAddress
            {
                victim = state.pending.filter { $0.value.host == host }.keys.min()
                why = "\(limits.maxPendingPerAddress) connections from \(host) are already in the handshake"
            } else if state.pending.count >= limits.maxPending {
                victim = state.pending.keys.min()
                why = "\(limits.maxPending) connections are already in the handshake"
            }
            var evicted: Pending?
            if let victim, let entry = Self.removePending(victim, from: &state) {
                evicted = entry
                state.evictedInFlood += 1
            }
            state.pending[ticket] = Pending(host: host, peer: peer, abort: abort)
            state.pendingPerHost[host, default: 0] += 1
            return (ticket, evicted, why, evicted != nil && state.evictedInFlood == 1)
        }
        if let evicted {
            if firstInFlood {
                logger.warning(
                    "closing the oldest connection still in the handshake to make room: \(why)",
                    [
                        "peer": evicted.peer, "newcomer": peer,
                    ])
            } else {
                logger.debug("closing the oldest connection still in the handshake: \(why)", ["peer": evicted.peer])
            }
            evicted.abort()
        }
        return ticket
    }

    /// The car finished its handshake: it leaves the pending budget for a linked slot, if one is free.
    func authenticated(_ ticket: UInt64) -> Verdict {
        state.withLock { state -> Verdict in
            guard Self.removePending(ticket, from: &state) != nil else {
                return state.linked.contains(ticket) ? .linked : .gone
            }
            guard state.linked.count < limits.maxLinked else { return .full(limit: limits.maxLinked) }
            state.linked.insert(ticket)
            return .linked
        }
    }

    /// The connection is over (whatever its state).
    func finished(_ ticket: UInt64) {
        let floodOver = state.withLock { state -> Int in
            _ = Self.removePending(ticket, from: &state)
            state.linked.remove(ticket)
            // Over once the budget and every address are back to at most half full.
            guard state.evictedInFlood > 0, state.pending.count <= limits.maxPending / 2,
                state.pendingPerHost.values.allSatisfy({ $0 <= limits.maxPendingPerAddress / 2 })
            else { return 0 }
            defer { state.evictedInFlood = 0 }
            return state.evictedInFlood
        }
        if floodOver > 0 {
            logger.notice("handshake flood over: \(floodOver) connection(s) that had not finished the handshake were closed to make room")
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        host.hasPrefix("127.") || host == "::1" || host.hasPrefix("::ffff:127.")
    }

    private static func removePending(_ ticket: UInt64, from state: inout State) -> Pending? {
        guard let entry = state.pending.removeValue(forKey: ticket) else { return nil }
        let left = state.pendingPerHost[entry.host, default: 1] - 1
        state.pendingPerHost[entry.host] = left > 0 ? left : nil
        return entry
    }
}
