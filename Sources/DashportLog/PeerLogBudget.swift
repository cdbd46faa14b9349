public import DashportClock
import Synchronization

/// A sink in front of another that bounds what any one peer can make the log grow by.
///
/// Lines are attributed by their `peer` metadata (its address without the port, so a peer
/// reconnecting on new ports shares one budget); lines without a peer pass through untouched.
/// Per peer:
/// - **repeats are counted, not repeated**: a line equal to the peer's previous one (level, label,
///   message and metadata) is held back and counted, and `… repeated N times` is written when the
///   peer's next different line arrives, or after ``repeatSummaryInterval`` of repeats;
/// - **a byte budget**: a token bucket of ``burstBytes`` refilled at ``bytesPerSecond``. A line
///   that does not fit is dropped; the first drop writes one line saying the peer is over its
///   budget, and the next line that fits is preceded by how many lines and bytes were suppressed.
///
/// So a peer can grow the log by at most `burstBytes` plus `bytesPerSecond` per second (plus one
/// notice line per suppression episode), whatever it sends. The table of peers is capped at
/// ``maxPeers``; the least recently heard peer is forgotten first.
public final class PeerLogBudget: LogSink {
    public let bytesPerSecond: Int
    public let burstBytes: Int
    public let maxPeers: Int
    public static let repeatSummaryInterval: Duration = .seconds(10)

    private struct Peer {
        var tokens: Double
        var refilled: ClockInstant
        var lastHeard: ClockInstant
        var previous: LogRecord?
        var repeats = 0
        var firstRepeat: ClockInstant?
        var suppressedLines = 0
        var suppressedBytes = 0
    }

    private let next: any LogSink
    private let clock: any DashportClock
    private let peers = Mutex<[String: Peer]>([:])

    public init(
        wrapping next: any LogSink, clock: any DashportClock = SystemClock(),
        bytesPerSecond: Int = 8192, burstBytes: Int = 65536, maxPeers: Int = 4096
    ) {
        self.next = next
        self.clock = clock
        self.bytesPerSecond = max(1, bytesPerSecond)
        self.burstBytes = max(1, burstBytes)
        self.maxPeers = max(1, maxPeers)
    }

    public func write(_ record: LogRecord) {
        guard let peer = record.metadata.first(where: { $0.0 == "peer" })?.1 else {
            next.write(record)
            return
        }
        let key = Self.address(peer)
        let now = clock.now
        let out = peers.withLock { table in decide(record, key: key, now: now, table: &table) }
        for line in out { next.write(line) }
    }

    /// What to write for `record` from peer `key`, updating its state.
    private func decide(_ record: LogRecord, key: String, now: ClockInstant, table: inout [String: Peer]) -> [LogRecord] {
        if table[key] == nil, table.count >= maxPeers, let oldest = table.min(by: { $0.value.lastHeard < $1.value.lastHeard }) {
            table[oldest.key] = nil
        }
        var state = table[key] ?? Peer(tokens: Double(burstBytes), refilled: now, lastHeard: now)
        defer { table[key] = state }
        state.lastHeard = now
        let elapsed = Double(now.milliseconds(since: state.refilled)) / 1000
        state.tokens = min(Double(burstBytes), state.tokens + max(0, elapsed) * Double(bytesPerSecond))
        state.refilled = now

        var out: [LogRecord] = []
        if state.previous == record {
            state.repeats += 1
            let first = state.firstRepeat ?? now
            state.firstRepeat = first
            guard now.milliseconds(since: first) >= Self.repeatSummaryInterval.wholeMilliseconds else { return [] }
            out.append(repeated(record, state.repeats, key))
            state.repeats = 0
            state.firstRepeat = nil
        } else {
            if state.repeats > 0, let previous = state.previous { out.append(repeated(previous, state.repeats, key)) }
            state.previous = record
            state.repeats = 0
            state.firstRepeat = nil
            out.append(record)
        }
        return admit(out, key: key, state: &state)
    }

    /// Lets through what the peer's budget pays for; counts and announces the rest.
    private func admit(_ lines: [LogRecord], key: String, state: inout Peer) -> [LogRecord] {
        var out: [LogRecord] = []
        for line in lines {
            let cost = Double(Self.cost(line))
            if state.tokens >= cost {
                if state.suppressedLines > 0 {
                    out.append(
                        notice(
                            "suppressed \(state.suppressedLines) log lines (\(state.suppressedBytes) bytes) about this peer: over its log budget",
                            key, level: line.level))
                    state.suppressedLines = 0
                    state.suppressedBytes = 0
                }
                state.tokens -= cost
                out.append(line)
            } else {
                if state.suppressedLines == 0 {
                    out.append(
                        notice(
                            "this peer is over its log budget (\(bytesPerSecond) bytes/s, \(burstBytes) burst): its lines are counted, not written",
                            key, level: .warning))
                }
                state.suppressedLines += 1
                state.suppressedBytes += Int(cost)
            }
        }
        return out
    }

    private func repeated(_ record: LogRecord, _ count: Int, _ key: String) -> LogRecord {
        LogRecord(
            level: record.level, label: record.label,
            message:
                "previous line repeated \(count) more time\(count == 1 ? "" : "s"): \(LogRecord.truncated(record.message, maxBytes: 120))",
            metadata: [("peer", key)])
    }

    private func notice(_ message: String, _ key: String, level: LogLevel) -> LogRecord {
        LogRecord(level: max(level, .notice), label: "log", message: message, metadata: [("peer", key)])
    }

    /// About the bytes the formatted line takes (timestamp and level included).
    static func cost(_ record: LogRecord) -> Int {
        var bytes = 40 + record.label.utf8.count + min(record.message.utf8.count, LogRecord.maxMessageBytes)
        for (key, value) in record.metadata { bytes += 2 + key.utf8.count + min(value.utf8.count, LogRecord.maxValueBytes) }
        return bytes
    }

    /// `127.0.0.1:40112` → `127.0.0.1`, `[::1]:5277` → `[::1]`; anything else as it is.
    static func address(_ peer: String) -> String {
        if peer.hasPrefix("["), let close = peer.firstIndex(of: "]") { return String(peer[...close]) }
        guard let colon = peer.lastIndex(of: ":"), peer.firstIndex(of: ":") == colon,
            peer[peer.index(after: colon)...].allSatisfy(\.isNumber)
        else { return peer }
        return String(peer[..<colon])
    }
}
