import Synchronization

/// Two ``ByteStream`` ends joined in memory: what one end writes, the other receives, in order.
/// No socket, no reactor: it lets a car and a server run whole sessions in one process (the
/// in-memory replay of recorded sessions). Bytes written before the other end starts are kept
/// until it does. Closing either end closes both.
public final class MemoryByteStream: ByteStream {
    public let peerDescription: String
    private let state = Mutex(State())
    private let peerBox = Mutex<MemoryByteStream?>(nil)

    struct State {
        var handler: (@Sendable (TransportEvent) -> Void)?
        var pending: [TransportEvent] = []
        var closed = false
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
        let queued = state.withLock { state in
            state.handler = handler
            defer { state.pending = [] }
            return state.pending
        }
        queued.forEach(handler)
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

    private func deliver(_ event: TransportEvent, evenIfClosed: Bool = false) {
        let handler: (@Sendable (TransportEvent) -> Void)? = state.withLock { state in
            if state.closed && !evenIfClosed { return nil }
            guard let handler = state.handler else {
                state.pending.append(event)
                return nil
            }
            return handler
        }
        handler?(event)
    }
}
