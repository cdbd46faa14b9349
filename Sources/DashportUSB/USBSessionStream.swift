public import Dispatch
public import DashportTransport
import Synchronization

/// One session over a USB bulk pipe pair, as the ``ByteStream`` the server and the head-unit
/// client drive (the same seam TCP gives them). The transport's reader thread hands it what the
/// peer sent; its writer thread takes queued bytes in chunks of at most 16 KiB.
///
/// Events reach the handler in order on the stream's own serial queue; the reader waits while the
/// handler takes each chunk, and while the consumer has paused reading (``pauseReading()``), so a
/// slow consumer slows the reads rather than growing a buffer here. Bytes queued for the peer are
/// capped (``outboundLimit``): past it the stream closes with ``TransportError/outboundBufferFull(_:)``.
public final class USBSessionStream: ByteStream {
    public let peerDescription: String
    public let outboundLimit: Int

    private struct State {
        var chunks: [[UInt8]] = []
        var head = 0
        var queued = 0
        /// Bytes the writer has taken and not yet reported sent (``chunkSent()``): a close waits for
        /// them too, or the car's last answer (a BYEBYE_RESPONSE) races the re-enumeration.
        var inFlight = 0
        var closeRequested = false
        var finished = false
        var activated = false
        /// The consumer asked to stop reading; ``deliver(_:)`` waits until it resumes.
        var readPaused = false
        /// One-shot callbacks for ``whenOutboundAtMost(_:_:)``.
        var drainWaiters: [(threshold: Int, callback: @Sendable () -> Void)] = []

        /// Takes the drain waiters now satisfied (all of them once the stream has ended).
        mutating func takeSatisfiedWaiters() -> [@Sendable () -> Void] {
            let (finished, queued) = (self.finished, self.queued)
            let ready = drainWaiters.filter { finished || $0.threshold >= queued }
            drainWaiters.removeAll { finished || $0.threshold >= queued }
            return ready.map(\.callback)
        }
    }

    private let state = Mutex(State())
    private let handler = Mutex<(@Sendable (TransportEvent) -> Void)?>(nil)
    private let events: DispatchQueue
    /// Signalled whenever there is something for the writer (bytes, or a close to carry out).
    private let writerWake: DispatchSemaphore
    /// Signalled when reading resumes or the stream ends, for a reader held by ``pauseReading()``.
    private let readerWake = DispatchSemaphore(value: 0)
    /// Told once when the stream ends from this side (close, abort, overflow), not on link loss.
    private let onLocalEnd: @Sendable () -> Void

    public init(
        peerDescription: String, outboundLimit: Int = TCPConnection.defaultOutboundBufferLimit, writerWake: DispatchSemaphore,
        onLocalEnd: @escaping @Sendable () -> Void = {}
    ) {
        self.peerDescription = peerDescription
        self.outboundLimit = outboundLimit
        self.writerWake = writerWake
        self.onLocalEnd = onLocalEnd
        self.events = DispatchQueue(label: "dashport.usb.session", attributes: .initiallyInactive)
    }

    public func start(_ handler: @escaping @Sendable (TransportEvent) -> Void) {
        self.handler.withLock { $0 = handler }
        activate()
    }

    public func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        let overflow = state.withLock { state -> Bool in
            guard !state.finished, !state.closeRequested else { return false }
            if state.queued + bytes.count > outboundLimit { return true }
            state.chunks.append(bytes)
            state.queued += bytes.count
            return false
        }
        if overflow {
            end(.outboundBufferFull(outboundLimit), local: true)
        } else {
            writerWake.signal()
        }
    }

    public func close() {
        let now = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.closeRequested = true
            return state.queued == 0 && state.inFlight == 0
        }
        if now { end(nil, local: true) } else { writerWake.signal() }
    }

    public func abort() {
        end(nil, local: true)
    }

    /// Whether the stream has ended (its `.closed` event is queued or delivered).
    public var isFinished: Bool { state.withLock { $0.finished } }

    public func pauseReading() {
        state.withLock { $0.readPaused = true }
    }

    public func resumeReading() {
        let wasPaused = state.withLock { state -> Bool in
            defer { state.readPaused = false }
            return state.readPaused
        }
        if wasPaused { readerWake.signal() }
    }

    public var outboundBufferedBytes: Int { state.withLock { $0.queued } }

    public func whenOutboundAtMost(_ threshold: Int, _ callback: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.finished || state.queued <= threshold { return true }
            state.drainWaiters.append((threshold, callback))
            return false
        }
        if now { callback() }
    }

    // MARK: The transport's side

    /// Hands bytes the peer sent to the handler, waiting until it has taken them (before
    /// ``start(_:)``, until the stream is started; after ``pauseReading()``, until reading resumes).
    /// Dropped once the stream has ended.
    public func deliver(_ bytes: [UInt8]) {
        guard !bytes.isEmpty, !isFinished else { return }
        events.sync {
            guard !isFinished else { return }
            let handler = self.handler.withLock { $0 }
            handler?(.received(bytes))
        }
        // Read on demand: the reader thread (and so the USB pipe) waits while the consumer is paused.
        while state.withLock({ $0.readPaused && !$0.finished }) { readerWake.wait() }
    }

    /// Up to `limit` queued bytes for the writer, oldest first; nil when nothing is queued.
    public func takeChunk(limit: Int = 16384) -> [UInt8]? {
        let (chunk, ready) = state.withLock { state -> ([UInt8]?, [@Sendable () -> Void]) in
            guard !state.finished, state.queued > 0 else { return (nil, []) }
            var chunk: [UInt8] = []
            while state.head < state.chunks.count, chunk.count < limit {
                let first = state.chunks[state.head]
                let room = limit - chunk.count
                if first.count <= room {
                    chunk += first
                    state.chunks[state.head] = []
                    state.head += 1
                } else {
                    chunk += first[..<room]
                    state.chunks[state.head] = Array(first[room...])
                }
            }
            state.queued -= chunk.count
            state.inFlight += chunk.count
            if state.head == state.chunks.count || state.head > 64 {
                state.chunks.removeFirst(state.head)
                state.head = 0
            }
            return (chunk, state.takeSatisfiedWaiters())
        }
        ready.forEach { $0() }
        return chunk
    }

    /// The writer sent a chunk (the host has taken it); a requested close happens once everything
    /// is out, so nothing the stream ends with (the session's re-enumeration) cuts it off.
    public func chunkSent() {
        let done = state.withLock { state -> Bool in
            state.inFlight = 0
            return !state.finished && state.closeRequested && state.queued == 0
        }
        if done { end(nil, local: true) }
    }

    /// The link under the stream is gone: the handler gets `.closed(error)`.
    public func linkLost(_ error: TransportError) {
        end(error, local: false)
    }

    private func end(_ error: TransportError?, local: Bool) {
        let ready = state.withLock { state -> [@Sendable () -> Void]? in
            guard !state.finished else { return nil }
            state.finished = true
            state.chunks = []
            state.head = 0
            state.queued = 0
            state.inFlight = 0
            return state.takeSatisfiedWaiters()
        }
        guard let ready else { return }
        readerWake.signal()
        ready.forEach { $0() }
        activate()
        events.async {
            let handler = self.handler.withLock { value in
                defer { value = nil }
                return value
            }
            handler?(.closed(error))
        }
        writerWake.signal()
        if local { onLocalEnd() }
    }

    private func activate() {
        let needed = state.withLock { state -> Bool in
            defer { state.activated = true }
            return !state.activated
        }
        if needed { events.activate() }
    }
}
