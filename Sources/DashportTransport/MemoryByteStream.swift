import Dispatch
import Synchronization

/// Two ``ByteStream`` ends joined in memory: what one end writes, the other receives, in order.
/// No socket, no reactor: it lets a car and a server run whole sessions in one process (the
/// in-memory replay of recorded sessions). Bytes written before the other end starts, or while
/// it has paused reading, are kept until it starts or resumes; nothing is queued on the writing
/// side, so ``outboundBufferedBytes`` is always 0. Closing either end closes both.
public final class MemoryByteStream: ByteStream {
    public let peerDescription: String
    private let state = Mutex(State())
    private let peerBox = Mutex<MemoryByteStream?>(nil)

    struct State {
        var handler: (@Sendable (TransportEvent) -> Void)?
        var pending: [TransportEvent] = []
        var closed = false
        /// ``pauseReading()`` was called: events wait in `pending`.
        var paused = false
        /// A thread is handing `pending` to the handler; others append behind it to keep order.
        var draining = false
    }

    private init(peerDescription: String) {
        self.peerDescription = peerDescription
    }

    /// A joined pair: `car` is the car's end, `phone` the server's.
    public static func pair(name: String = "memory") -> (car: MemoryByteStream, phone: MemoryByteStream) {
        let car = MemoryByteStream(peerDescription: "\(name) (phone end)")
        let phone = MemoryByteStream(peerDescription: "\(name) (car end)")
        car.peerBox.withLock { $0 = phone }
        phone.peerBox.withLock { $0 = car }
        return (car, phone)
    }

    public func start(_ handler: @escaping @Sendable (TransportEvent) -> Void) {
        state.withLock { $0.handler = handler }
        drain()
    }

    public func pauseReading() {
        state.withLock { $0.paused = true }
    }

    /// Held events are handed over from another thread, not the caller's: a reader resumes with
    /// its own lock held (``CarMailbox`` does, so a pause cannot overtake the resume), and a
    /// handler called inside it would take that lock again.
    public func resumeReading() {
        state.withLock { $0.paused = false }
        DispatchQueue.global().async { self.drain() }
    }

    public var outboundBufferedBytes: Int { 0 }

    public func whenOutboundAtMost(_ threshold: Int, _ callback: @escaping @Sendable () -> Void) {
        callback()  // nothing is ever queued on this side
    }

    /// Hands held events to the handler in order until none are left or reading is paused; one
    /// thread at a time.
    private func drain() {
        var first = true
        while true {
            let next = state.withLock { state -> (TransportEvent, @Sendable (TransportEvent) -> Void)? in
                if first && state.draining { return nil }  // the thread draining now hands these over
                first = false
                guard let handler = state.handler, !state.paused, !state.pending.isEmpty else {
                    state.draining = false
                    return nil
                }
                state.draining = true
                return (state.pending.removeFirst(), handler)
            }
            guard let (event, handler) = next else { return }
            handler(event)
        }
    }

    public func write(_ bytes: [UInt8]) {
        guard !state.withLock({ $0.closed }), !bytes.isEmpty else { return }
        peerBox.withLock { $0 }?.deliver(.received(bytes))
    }

    public func close() {
        let peer = peerBox.withLock { box in
            defer { box = nil }
            return box
        }
        peer?.finish()
        finish()
    }

    public func abort() {
        close()
    }

    private func finish() {
        let closedNow = state.withLock { state in
            defer { state.closed = true }
            return !state.closed
        }
        if closedNow { deliver(.closed(nil), evenIfClosed: true) }
        peerBox.withLock { $0 = nil }
    }

    /// Queues `event` and hands it over through ``drain()``: two threads writing to one end at once
    /// (a car's worker and a core push) reach the handler one at a time and in order.
    private func deliver(_ event: TransportEvent, evenIfClosed: Bool = false) {
        let queued = state.withLock { state -> Bool in
            if state.closed && !evenIfClosed { return false }
            state.pending.append(event)
            return true
        }
        if queued { drain() }
    }
}
