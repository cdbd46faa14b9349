import Synchronization

/// A process-wide cap on the bytes queued for all peers together (issue 11 item 7).
///
/// Each connection's own cap (``TCPConnection/outboundBufferLimit``) bounds one slow car; with
/// hundreds of cars that still multiplies. Connections that share a budget count their queued
/// bytes here; when the total passes ``limit`` the reactor closes the connection with the most
/// queued (with ``TransportError/outboundBudgetExhausted(_:)``) until the total is back under it.
/// A car that reads keeps its queue near empty and so is never the one closed.
public final class OutboundBudget: Sendable {
    /// Default: 32 MiB, about 25 cars each at their full per-car cap.
    public static let defaultLimit = 32 * 1024 * 1024

    /// Total bytes allowed in all queues sharing this budget.
    public let limit: Int
    private let total = Atomic<Int>(0)
    /// A shedding pass is queued on the reactor and has not run yet.
    let shedPending = Atomic<Bool>(false)
    /// The reactors whose connections count against this budget (a listener's ``TCPListener/connectionLoops``):
    /// a shedding pass looks for the largest queue on every one of them.
    private let loops = Mutex<[EventLoop]>([])

    public init(limit: Int = OutboundBudget.defaultLimit) {
        self.limit = max(1, limit)
    }

    /// Bytes queued now for all connections sharing this budget.
    public var queuedBytes: Int { total.load(ordering: .relaxed) }

    var isOver: Bool { queuedBytes > limit }

    /// Counts `loops` among the reactors whose connections share this budget.
    func share(_ loops: [EventLoop]) {
        self.loops.withLock { known in
            for loop in loops where !known.contains(where: { $0 === loop }) { known.append(loop) }
        }
    }

    /// The reactors whose connections share this budget.
    var reactors: [EventLoop] { loops.withLock { $0 } }

    func add(_ count: Int) { total.add(count, ordering: .relaxed) }
    func subtract(_ count: Int) { if count != 0 { total.subtract(count, ordering: .relaxed) } }
}
