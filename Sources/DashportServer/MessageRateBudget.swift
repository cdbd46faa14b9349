/// How many messages a linked car may send: a token bucket of ``burst`` messages refilled at
/// ``perSecond``. Past it the car's reading is paused (its worker waits; its mailbox fills; the
/// reactor stops reading its socket) until the bucket is back at zero; a car that stays over the
/// budget for ``closeAfter`` is closed. Real head units send a few messages a second (pings, a
/// browse burst, 23 audio ACKs a second); a flood of tens of thousands a second only slows itself.
///
/// Sans-IO: time comes in as `now` (the server clock's time since its origin).
struct MessageRateBudget: Sendable {
    struct Limits: Sendable, Hashable {
        var perSecond: Int = 1000
        var burst: Int = 2000
        /// Over the budget this long (with no second in between under it): closed.
        var closeAfter: Duration = .seconds(30)
    }

    enum Verdict: Sendable, Equatable {
        case within
        /// Wait this long before reading more.
        case slowDown(Duration)
        /// Over the budget for `closeAfter`.
        case close
    }

    let limits: Limits
    private var tokens: Double
    private var refilled: Duration?
    private var overSince: Duration?
    private var lastOver: Duration?

    init(_ limits: Limits) {
        self.limits = Limits(perSecond: max(1, limits.perSecond), burst: max(1, limits.burst), closeAfter: limits.closeAfter)
        self.tokens = Double(self.limits.burst)
    }

    /// Whether a throttling episode is under way (for logging its start once).
    var isOver: Bool { overSince != nil }

    /// Charges `messages` received by `now`.
    mutating func charge(_ messages: Int, now: Duration) -> Verdict {
        let elapsed = refilled.map { Self.seconds(now - $0) } ?? 0
        refilled = now
        tokens = min(Double(limits.burst), tokens + max(0, elapsed) * Double(limits.perSecond)) - Double(messages)
        if tokens >= 0 {
            if let last = lastOver, now - last >= .seconds(1) {
                overSince = nil
                lastOver = nil
            }
            return .within
        }
        let since = overSince ?? now
        overSince = since
        lastOver = now
        if now - since >= limits.closeAfter { return .close }
        return .slowDown(.milliseconds(Int64((-tokens / Double(limits.perSecond) * 1000).rounded(.up))))
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
