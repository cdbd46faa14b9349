import Synchronization

/// Keeps one address whose connections are closed for bad input over and over (a flooder that
/// reconnects hundreds of times a second) from filling the log.
///
/// Each address may have ``Limits/perAddress`` close warnings logged per ``Limits/window``,
/// counted from the first; further closes from it in that window are counted, not logged, and its
/// connections meanwhile log at warning level and above only (no "car connected" line each). The
/// count is reported as "N more closes from ADDR suppressed" with the first close logged after the
/// window, or, for an address that has gone quiet, by the next close from any address once the
/// window has passed. No timer: everything happens when a connection arrives or closes.
///
/// At most ``Limits/maxAddresses`` addresses are tracked at once; closes from further addresses
/// are logged as before. Thread-safe.
final class RepeatedCloseLog: Sendable {
    struct Limits: Sendable, Hashable {
        var perAddress = 5
        var window: Duration = .seconds(60)
        var maxAddresses = 4096
    }

    /// What the caller does with one close warning.
    struct Decision: Sendable, Equatable {
        /// Log the close warning (else count it only).
        var log: Bool
        /// This is the last close from the address logged in this window: say that more are counted.
        var lastInWindow = false
        /// Closes of this and other addresses whose windows ended with closes suppressed, to report
        /// now as "N more closes from ADDR suppressed", oldest window first.
        var suppressed: [(host: String, count: Int)] = []

        static func == (a: Decision, b: Decision) -> Bool {
            a.log == b.log && a.lastInWindow == b.lastInWindow
                && a.suppressed.map(\.host) == b.suppressed.map(\.host) && a.suppressed.map(\.count) == b.suppressed.map(\.count)
        }
    }

    private struct Entry {
        var windowStart: Duration
        var logged = 0
        var suppressed = 0
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// When the entries were last swept for ended windows.
        var sweptAt: Duration?
    }

    let limits: Limits
    private let state = Mutex(State())

    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Whether connections from `host` should log quietly now: it has had its share of close
    /// warnings in the current window.
    func isQuiet(_ host: String, now: Duration) -> Bool {
        state.withLock { state in
            guard let entry = state.entries[host], now - entry.windowStart < limits.window else { return false }
            return entry.logged >= limits.perAddress
        }
    }

    /// A connection from `host` is being closed for bad input at `now`.
    func closing(_ host: String, now: Duration) -> Decision {
        state.withLock { state in
            var decision = Decision(log: true)
            if let entry = state.entries[host], now - entry.windowStart >= limits.window {
                // Its window is over: report what it suppressed, start a new one.
                if entry.suppressed > 0 { decision.suppressed.append((host, entry.suppressed)) }
                state.entries[host] = nil
            }
            if state.sweptAt.map({ now - $0 >= limits.window }) ?? true {
                state.sweptAt = now
                let ended = state.entries.filter { now - $0.value.windowStart >= limits.window }
                for (other, entry) in ended.sorted(by: { $0.value.windowStart < $1.value.windowStart }) {
                    if entry.suppressed > 0 { decision.suppressed.append((other, entry.suppressed)) }
                    state.entries[other] = nil
                }
            }
            guard var entry = state.entries[host] ?? newEntry(now: now, count: state.entries.count) else { return decision }
            if entry.logged < limits.perAddress {
                entry.logged += 1
                decision.lastInWindow = entry.logged == limits.perAddress
            } else {
                entry.suppressed += 1
                decision.log = false
            }
            state.entries[host] = entry
            return decision
        }
    }

    private func newEntry(now: Duration, count: Int) -> Entry? {
        count < limits.maxAddresses ? Entry(windowStart: now) : nil
    }
}
