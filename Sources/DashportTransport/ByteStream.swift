/// What a ``ByteStream`` tells its owner. Events arrive in order, on the reactor thread.
public enum TransportEvent: Sendable {
    /// Bytes from the peer, in the order they were sent (a chunk of at most 64 KiB).
    case received([UInt8])
    /// The stream is closed; sent exactly once, always last. `nil` is an orderly close, by the peer
    /// (end of stream) or by us (``ByteStream/close()`` or ``ByteStream/abort()``).
    case closed(TransportError?)
}

/// Why a transport operation failed. Carries the system's own text (`strerror`) where there is one.
public enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Listening on the address failed: the address, and the system's reason ("Address already in use").
    case bind(ListenAddress, String)
    /// Connecting to the address failed: the address, and the system's reason ("Connection refused").
    case connect(ListenAddress, String)
    /// The peer reset the connection, or it went away while we were still writing.
    case reset
    /// More bytes were queued for a peer than the connection's cap (bytes) allows: the peer reads too
    /// slowly or not at all, so the connection was closed rather than let memory grow.
    case outboundBufferFull(Int)
    /// The bytes queued for all peers together passed the process-wide budget (bytes), and this
    /// connection had the most queued, so it was closed to bring the total back under the budget.
    case outboundBudgetExhausted(Int)
    /// Any other system error, as "operation: reason".
    case io(String)

    public var description: String {
        switch self {
        case .bind(let address, let reason): "cannot listen on \(address): \(reason)"
        case .connect(let address, let reason): "cannot connect to \(address): \(reason)"
        case .reset: "connection reset by peer"
        case .outboundBufferFull(let limit):
            "outbound buffer full: more than \(limit) bytes queued for a peer that does not read; connection closed"
        case .outboundBudgetExhausted(let budget):
            "outbound budget exhausted: more than \(budget) bytes queued for all peers; closed the peer with the most queued"
        case .io(let text): text
        }
    }
}

/// A byte stream to one peer (a car). TCP now; the USB gadget later implements the same protocol.
///
/// Transports only move bytes: they know nothing about AAP. Everything is non-blocking, so any
/// thread or task may call ``write(_:)``, ``close()`` and ``abort()``; a transport with a reactor
/// makes every system call on the reactor thread and only queues from other threads.
public protocol ByteStream: AnyObject, Sendable {
    /// Who is on the other end, for logs: "127.0.0.1:40112", "[::1]:40112".
    var peerDescription: String { get }

    /// Starts delivering events to `handler`, in order, on the reactor thread. The handler must not
    /// block (hand work to a task instead); it may call `write`, `close` and `abort`. Nothing is read
    /// before `start`. Call it once.
    func start(_ handler: @escaping @Sendable (TransportEvent) -> Void)

    /// Queues bytes to send, in call order, and returns at once; they go out as the peer takes them.
    /// Ignored after `close` or `abort`. Exceeding the connection's outbound cap closes it with
    /// ``TransportError/outboundBufferFull(_:)``.
    func write(_ bytes: [UInt8])

    /// Sends what is queued, then closes; the handler gets `.closed(nil)`.
    func close()

    /// Closes now and drops whatever is still queued; the handler gets `.closed(nil)`.
    func abort()

    /// Stops delivering `.received` (read on demand): the transport stops reading, so the peer is
    /// held back by the transport's own flow control instead of buffered. Any thread.
    func pauseReading()

    /// Delivers `.received` again after ``pauseReading()``. Any thread.
    func resumeReading()

    /// Bytes queued for the peer and not yet handed to the system.
    var outboundBufferedBytes: Int { get }

    /// Calls `callback` once when at most `threshold` bytes are queued for the peer (at once if
    /// that holds now), or when the stream closes. For producers pausing at a high-water mark.
    func whenOutboundAtMost(_ threshold: Int, _ callback: @escaping @Sendable () -> Void)

    /// Where the task that serves this stream should run: the reactor that owns the stream's
    /// socket, so the stream's events are handled and its answers written on the thread that
    /// reads and writes it, without a wake of another thread each way. nil: anywhere (the
    /// cooperative pool).
    var preferredExecutor: (any TaskExecutor)? { get }
}

extension ByteStream {
    public var preferredExecutor: (any TaskExecutor)? { nil }
}
