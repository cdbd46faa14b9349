import DashportLog
import Synchronization

/// Keeps sockets that never finish the handshake from taking the cars' places.
///
/// A connection is *pending* from accept until the car's AUTH_COMPLETE (after the TLS handshake and
/// the peer-certificate check); then it is *linked*. Linked cars have their own `maxLinked` slots;
/// pending connections share a smaller budget, `maxPending`, of which one address may hold at most
/// `maxPendingPerAddress` (loopback excepted: every local process shares it). When a new
/// connection's address is at its limit, one pending connection *from that address* makes room,
/// else when the budget is full one pending connection overall does: the one that has made the
/// least progress (``progressed(_:to:)``: nothing valid yet, then a version exchange, then TLS
/// under way), the oldest among equals. A socket that has sent nothing valid goes before a car in
/// the middle of TLS, and when everyone pending has made progress the newcomer (which has not) is
/// refused instead, so a car that keeps sending valid steps links under any connect flood. Linked
/// cars are never pushed out; one address may hold at most `maxLinkedPerAddress` of the linked
/// slots, so no one local process keeps every car out for ever. Every socket counts against the
/// listener's hard cap of `maxLinked + maxPending`.
///
/// ``admit(host:peer:abort:)`` runs on the reactor thread at accept, so a flood is trimmed as it
/// arrives, before any connection task runs. Thread-safe.
final class HandshakeAdmission: Sendable {
    struct Limits: Sendable, Hashable {
        var maxLinked: Int
        var maxPending: Int
        var maxPendingPerAddress: Int
        /// Linked cars one address may hold (loopback included).
        var maxLinkedPerAddress: Int = .max
        /// Whether `maxPendingPerAddress` applies to loopback hosts (127.0.0.0/8, ::1) too.
        var perAddressOnLoopback = false
    }

    /// What ``authenticated(_:)`` decided.
    enum Verdict: Sendable, Equatable {
        case linked
        /// `maxLinked` cars are linked already: the caller closes this one.
        case full(limit: Int)
        /// `maxLinkedPerAddress` cars from this address are linked already: the caller closes this one.
        case fullForAddress(limit: Int, host: String)
        /// It was closed to make room before it got there; its close is under way.
        case gone
    }

    private struct Pending {
        var host: String
        var peer: String
        var abort: @Sendable () -> Void
    }

    /// What the search for a connection to displace reads of a pending one: no reference-counted
    /// field, so scanning the 64 of them (every accept under a connect thrash) copies nothing (the
    /// search over `Pending`s, two strings and a closure each, was a sixth of the server's CPU).
    private struct Slot {
        /// How far its handshake got: 0 nothing valid, 1 version exchanged, 2 TLS done.
        var progress = 0
        /// Its address's number among the addresses with pending connections.
        var host: Int
    }

    /// Pending connections from one address, and the address's number for ``Slot/host``.
    private struct HostCount {
        var count: Int
        var id: Int
    }

    private struct State {
        var next: UInt64 = 0
        /// Keyed by ticket: tickets grow, so the smallest is the oldest.
        var pending: [UInt64: Pending] = [:]
        /// The same tickets' progress and address numbers.
        var slots: [UInt64: Slot] = [:]
        var pendingPerHost: [String: HostCount] = [:]
        var nextHostID = 0
        /// Linked tickets and their hosts.
        var linked: [UInt64: String] = [:]
        var linkedPerHost: [String: Int] = [:]
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

    /// Takes a new connection in as pending and returns its ticket, closing (with `abort`, outside
    /// the lock) the pending connection it displaces, if any; nil when the newcomer itself is refused
    /// because every connection it could displace has made progress (the caller closes it).
    func admit(host: String, peer: String, abort: @escaping @Sendable () -> Void) -> UInt64? {
        let (ticket, evicted, why, firstInFlood) = state.withLock { state -> (UInt64?, Pending?, String, Bool) in
            // Who may make room: that address's connections, else anyone's. Searched in place, not
            // copied: under a connect thrash this runs for every accept with the budget full.
            var sameHost: Bool?
            var why = ""
            if limits.perAddressOnLoopback || !Self.isLoopback(host),
                state.pendingPerHost[host]?.count ?? 0 >= limits.maxPendingPerAddress
            {
                sameHost = true
                why = "\(limits.maxPendingPerAddress) connections from \(host) are already in the handshake"
            } else if state.pending.count >= limits.maxPending {
                sameHost = false
                why = "\(limits.maxPending) connections are already in the handshake"
            }
            // The least progress goes first, the oldest (smallest ticket) among equals.
            var victim: (key: UInt64, progress: Int)?
            if let sameHost {
                let hostID = state.pendingPerHost[host]?.id ?? -1
                for (key, slot) in state.slots where !sameHost || slot.host == hostID {
                    if let best = victim, (best.progress, best.key) <= (slot.progress, key) { continue }
                    victim = (key, slot.progress)
                }
            }
            if let victim, victim.progress > 0 {
                state.evictedInFlood += 1
                return (nil, nil, why, state.evictedInFlood == 1)
            }
            var evicted: Pending?
            if let victim, let entry = Self.removePending(victim.key, from: &state) {
                evicted = entry
                state.evictedInFlood += 1
            }
            state.next += 1
            let ticket = state.next
            state.pending[ticket] = Pending(host: host, peer: peer, abort: abort)
            let number = state.pendingPerHost[host]?.id ?? state.nextHostID
            if number == state.nextHostID { state.nextHostID &+= 1 }
            state.pendingPerHost[host, default: HostCount(count: 0, id: number)].count += 1
            state.slots[ticket] = Slot(host: number)
            return (ticket, evicted, why, (evicted != nil) && state.evictedInFlood == 1)
        }
        if ticket == nil {
            let line = "refusing a new connection: every connection in the handshake is making progress (\(why))"
            if firstInFlood { logger.warning(line, ["peer": peer]) } else { logger.debug(line, ["peer": peer]) }
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

    /// The connection's handshake got to `level` (1: version exchanged, 2: TLS done): it is kept
    /// ahead of connections that got less far.
    func progressed(_ ticket: UInt64, to level: Int) {
        state.withLock { state in
            guard let slot = state.slots[ticket], slot.progress < level else { return }
            state.slots[ticket]?.progress = level
        }
    }

    /// The car finished its handshake: it leaves the pending budget for a linked slot, if one is free.
    func authenticated(_ ticket: UInt64) -> Verdict {
        state.withLock { state -> Verdict in
            guard let entry = Self.removePending(ticket, from: &state) else {
                return state.linked[ticket] != nil ? .linked : .gone
            }
            guard state.linked.count < limits.maxLinked else { return .full(limit: limits.maxLinked) }
            guard state.linkedPerHost[entry.host, default: 0] < limits.maxLinkedPerAddress else {
                return .fullForAddress(limit: limits.maxLinkedPerAddress, host: entry.host)
            }
            state.linked[ticket] = entry.host
            state.linkedPerHost[entry.host, default: 0] += 1
            return .linked
        }
    }

    /// Linked cars per address, most first: who holds the slots (`dashport ctl status`).
    var linkedPerAddress: [(host: String, cars: Int)] {
        state.withLock { $0.linkedPerHost.map { ($0.key, $0.value) } }.sorted { ($0.cars, $1.host) > ($1.cars, $0.host) }
    }

    /// The connection is over (whatever its state).
    func finished(_ ticket: UInt64) {
        let floodOver = state.withLock { state -> Int in
            _ = Self.removePending(ticket, from: &state)
            if let host = state.linked.removeValue(forKey: ticket) {
                let left = state.linkedPerHost[host, default: 1] - 1
                state.linkedPerHost[host] = left > 0 ? left : nil
            }
            // Dictionaries keep their capacity when emptied: at rest, free what a crowd grew them to.
            if state.linked.isEmpty && state.pending.isEmpty {
                (state.linked, state.linkedPerHost, state.pending, state.slots, state.pendingPerHost) = ([:], [:], [:], [:], [:])
            }
            // Over once the budget and every address are back to at most half full.
            guard state.evictedInFlood > 0, state.pending.count <= limits.maxPending / 2,
                state.pendingPerHost.values.allSatisfy({ $0.count <= limits.maxPendingPerAddress / 2 })
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
        state.slots[ticket] = nil
        if let count = state.pendingPerHost[entry.host]?.count, count > 1 {
            state.pendingPerHost[entry.host]?.count = count - 1
        } else {
            state.pendingPerHost[entry.host] = nil
        }
        return entry
    }
}
