/// Schedules our PING_REQUESTs and matches the answers, for both roles (aap-protocol.md §2.10).
///
/// The timestamp of each ping is the injected monotonic clock in microseconds; the peer only
/// echoes it. An unanswered ping is never an error: openauto neither sends nor answers pings
/// (§8.3). Only the most recent ``maxOutstanding`` pings are remembered for round-trip times.
package struct PingKeeper: Sendable {
    /// How many unanswered pings are remembered; older ones are forgotten.
    package static let maxOutstanding = 16

    package private(set) var interval: Duration
    /// When the next ping is due; `nil` while stopped.
    package private(set) var nextPingAt: Duration?
    /// Pings sent and not answered, oldest first: (timestamp sent, clock reading when sent).
    private var outstanding: [(timestamp: Int64, sentAt: Duration)] = []
    /// Pings sent since ``start(now:interval:)``.
    package private(set) var sentCount = 0

    package init(interval: Duration) {
        self.interval = interval
    }

    /// Starts pinging: the first ping is due one interval from `now`.
    package mutating func start(now: Duration, interval: Duration? = nil) {
        if let interval { self.interval = interval }
        nextPingAt = now + self.interval
    }

    package mutating func stop() {
        nextPingAt = nil
        outstanding.removeAll()
    }

    /// The timestamp to send in a PING_REQUEST when a ping is due at `now`, else `nil`. After a
    /// long gap (the driver was late) the schedule restarts from `now` instead of bursting.
    package mutating func due(now: Duration) -> Int64? {
        guard let next = nextPingAt, now >= next else { return nil }
        let following = next + interval
        nextPingAt = following > now ? following : now + interval
        let timestamp = now.wholeMicroseconds
        outstanding.append((timestamp, now))
        if outstanding.count > Self.maxOutstanding { outstanding.removeFirst() }
        sentCount += 1
        return timestamp
    }

    /// The round-trip time of the ping whose timestamp came back, or `nil` for a timestamp we do
    /// not remember (forgotten, duplicated, or never sent by us).
    package mutating func answered(timestamp: Int64, now: Duration) -> Duration? {
        guard let index = outstanding.firstIndex(where: { $0.timestamp == timestamp }) else { return nil }
        let sentAt = outstanding[index].sentAt
        outstanding.remove(at: index)
        return now - sentAt
    }

    /// Pings currently remembered as unanswered.
    package var unansweredCount: Int { outstanding.count }
}

extension Duration {
    /// Whole microseconds, saturating: the unit of AAP ping timestamps (aap-protocol.md §2.10).
    package var wholeMicroseconds: Int64 {
        let (seconds, attoseconds) = components
        let (micros, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = micros.addingReportingOverflow(attoseconds / 1_000_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return sum
    }
}
