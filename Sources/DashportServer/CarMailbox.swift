import DashportTransport
import Synchronization

/// The bounded inbox of one car connection: everything that reaches the connection's worker
/// (bytes from the transport, deadline ticks, core answers, shutdown) waits here, and the worker
/// takes one input at a time with ``next()``.
///
/// Back-pressure both ways (swift-nio's read-on-demand and watermarks are the model):
/// - **Inbound.** Received bytes are held up to ``inboundHighWater``; past it the transport is
///   told to stop reading (``ByteStream/pauseReading()``), so a car that sends faster than its
///   worker keeps is held back by TCP, not buffered. Reading resumes once the worker has taken the
///   backlog down to ``inboundLowWater``. At most `inboundHighWater` plus one transport read
///   (64 KiB) are ever held: 128 KiB per car.
/// - **Outbound.** When more than ``outboundHighWater`` bytes are queued for the car the worker
///   calls ``pauseForOutbound(_:)``: it stops taking bytes and core answers (the things that make
///   output) until the transport has sent all but ``outboundLowWater``. Since it also stops taking
///   bytes, the reactor soon stops reading: a car that never reads is paused, not buffered, and
///   its link closes it when its pings go unanswered.
/// - **Core inputs.** Answers are bounded by each service's requests in flight; pushes are not, so
///   at most ``maxPendingServiceInputs`` are held and one more closes the car (`.overflow`).
/// - **Deadlines first.** A pending tick and a shutdown are taken before any backlog, so a flood
///   cannot delay its own handshake deadline.
final class CarMailbox: Sendable {
    static let inboundHighWater = 64 * 1024
    static let inboundLowWater = 16 * 1024
    static let outboundHighWater = 192 * 1024
    static let outboundLowWater = 64 * 1024
    /// Core answers and pushes held at most; one more means the car cannot keep up (its worker is
    /// paused for output while other cars' commands keep the session pushing): it is closed.
    static let maxPendingServiceInputs = 4096

    private struct State {
        var received: [[UInt8]] = []
        var head = 0
        var receivedBytes = 0
        var closed: TransportError?? = .none
        var tick = false
        var shutdown = false
        var services: [ServiceInput] = []
        var servicesHead = 0
        /// Channels whose service was woken (``wake(channel:inlineAllowed:)``), each at most once.
        var wakes: [UInt8] = []
        var overflowed = false
        var readingPaused = false
        var outboundPaused = false
        var waiter: UnsafeContinuation<Void, Never>?
        var finished = false
        /// The worker, for the wakes run in the reactor's turn (``runInline(on:_:)``).
        var inline: InlineWorker?

        /// The waiting worker, taken, when there is work for it now.
        mutating func takeWaiterIfReady() -> UnsafeContinuation<Void, Never>? {
            guard hasWork, let waiter else { return nil }
            self.waiter = nil
            return waiter
        }

        var hasWork: Bool {
            if tick || shutdown || overflowed { return true }
            if outboundPaused { return head == received.count && closed != nil }
            return head < received.count || servicesHead < services.count || !wakes.isEmpty || closed != nil
        }
    }

    private let state = Mutex(State())
    private let stream: any ByteStream

    init(stream: any ByteStream) {
        self.stream = stream
    }

    /// Bytes received and not yet taken by the worker: what this car holds of server memory
    /// in its inbox (a test seam; never more than ``inboundHighWater`` + one transport read).
    var queuedInboundBytes: Int { state.withLock { $0.receivedBytes } }

    /// The mailbox and its stream in one line, for a test that timed out waiting on a car.
    var debugState: String {
        let mine = state.withLock { state in
            "inbox=\(state.received.count - state.head) chunks/\(state.receivedBytes) bytes services=\(state.services.count - state.servicesHead) "
                + "tick=\(state.tick) closed=\(state.closed != nil) readingPaused=\(state.readingPaused) "
                + "outboundPaused=\(state.outboundPaused) waiting=\(state.waiter != nil) finished=\(state.finished)"
        }
        return mine + ((stream as? TCPConnection).map { "; tcp " + $0.debugState } ?? "")
    }

    /// Room the inbox holds for core inputs (a test seam: none once they are all taken).
    var reservedServiceInputs: Int { state.withLock { $0.services.capacity } }

    /// Whether a deadline tick waits to be taken (a test seam).
    var isTickPending: Bool { state.withLock { $0.tick } }

    /// Whether the transport is told to stop reading (a test seam).
    var isReadingPaused: Bool { state.withLock { $0.readingPaused } }

    /// Posts an input. Transport events come from the reactor thread, the rest from anywhere.
    /// Returns false once the worker is done (the input was dropped): a core push handler is then
    /// unsubscribed.
    @discardableResult
    func yield(_ input: CarInput) -> Bool {
        let (waiter, accepted) = state.withLock { state -> (UnsafeContinuation<Void, Never>?, Bool) in
            guard !state.finished else { return (nil, false) }
            switch input {
            case .transport(.received(let bytes)):
                state.received.append(bytes)
                state.receivedBytes += bytes.count
                if state.receivedBytes >= CarMailbox.inboundHighWater && !state.readingPaused {
                    // Called with the lock held so a concurrent resume cannot overtake this pause.
                    state.readingPaused = true
                    stream.pauseReading()
                }
            case .transport(.closed(let reason)):
                state.closed = .some(reason)
            case .tick:
                state.tick = true
            case .shutdown:
                state.shutdown = true
            case .services(let input):
                if state.services.count - state.servicesHead >= CarMailbox.maxPendingServiceInputs {
                    state.overflowed = true
                } else {
                    state.services.append(input)
                }
            case .overflow:
                state.overflowed = true
            }
            return (state.takeWaiterIfReady(), true)
        }
        waiter?.resume()
        return accepted
    }

    /// What ``wake(channel:inlineAllowed:)`` did.
    enum Wake: Equatable {
        /// The worker is done; nothing was woken.
        case gone
        /// The wake is queued for the worker's task (or ran inline, when allowed).
        case woken
        /// Nothing done: the step would run inline here, which was not allowed. Ask again.
        case runsHere
    }

    /// Wakes the service on `channel` with a ``ServiceWake``: coalesced (a channel already woken
    /// and not yet served is not queued twice) and outside ``maxPendingServiceInputs``, so a
    /// producer that wakes a car for every packet of audio never fills, or overflows, its
    /// mailbox. Held back, like every output-producing input, while the car does not read.
    ///
    /// Called on the reactor thread the worker runs on while the worker is parked with nothing to
    /// do (and not held back for output), the wake is not queued: the worker's step for it runs
    /// here, in the caller's turn (``runInline(on:_:)``). With `inlineAllowed` false such a car is
    /// left alone (``Wake/runsHere``), so a caller that wakes many cars at once (the audio pump)
    /// can first wake the cars of other reactors, which then work in parallel, and run its own
    /// reactor's cars after.
    func wake(channel: UInt8, inlineAllowed: Bool) -> Wake {
        let (waiter, outcome, inline) = state.withLock { state -> (UnsafeContinuation<Void, Never>?, Wake, InlineWorker?) in
            guard !state.finished else { return (nil, .gone, nil) }
            if let inline = state.inline, state.waiter != nil, !state.outboundPaused, !state.hasWork, inline.loop.isCurrentThread {
                return inlineAllowed ? (nil, .woken, inline) : (nil, .runsHere, nil)
            }
            if !state.wakes.contains(channel) { state.wakes.append(channel) }
            return (state.takeWaiterIfReady(), .woken, nil)
        }
        waiter?.resume()
        inline?.wake(channel: channel)
        return outcome
    }

    /// Lets ``wake(channel:inlineAllowed:)`` run `worker`'s step itself while the worker's task is parked in
    /// ``next(waited:)`` and the caller is on `loop`, the reactor that task runs on (its executor
    /// preference): the pump then writes every car's audio in its own turn, without resuming a
    /// task per car per packet. Call from the worker's task, on `loop`.
    func runInline(on loop: EventLoop, _ worker: CarWorker) {
        state.withLock { $0.inline = InlineWorker(worker: worker, loop: loop) }
    }

    /// The next input, deadlines and shutdown first; waits while there is none.
    func next() async -> CarInput {
        var waited = false
        return await next(waited: &waited)
    }

    /// ``next()``, telling whether it had to wait for the input (the worker had nothing to do).
    func next(waited: inout Bool) async -> CarInput {
        waited = false
        while true {
            if let input = take() { return input }
            waited = true
            // Unsafe, not checked (issue 22, item 2: the checked one's allocation and atomic check
            // were 1.8% of a reactor serving 50 cars): resumed exactly once, because whoever
            // resumes it first takes it out of the state under the lock (`takeWaiterIfReady`, or
            // `ready` here, which never stores it).
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.hasWork { return true }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    private func take() -> CarInput? {
        state.withLock { state -> CarInput? in
            if state.shutdown {
                state.shutdown = false
                return .shutdown
            }
            if state.overflowed {
                state.overflowed = false
                state.finished = true
                return .overflow
            }
            if state.tick {
                state.tick = false
                return .tick
            }
            if !state.outboundPaused {
                if state.head < state.received.count {
                    let bytes = state.received[state.head]
                    state.received[state.head] = []
                    state.head += 1
                    state.receivedBytes -= bytes.count
                    if state.head == state.received.count {
                        state.received.removeAll(keepingCapacity: state.received.count <= 16)
                        state.head = 0
                    }
                    if state.readingPaused && state.receivedBytes <= CarMailbox.inboundLowWater {
                        state.readingPaused = false
                        stream.resumeReading()
                    }
                    return .transport(.received(bytes))
                }
                if state.servicesHead < state.services.count {
                    let input = state.services[state.servicesHead]
                    state.servicesHead += 1
                    if state.servicesHead == state.services.count {
                        // Released, not kept: an input is a large enum (an answer, an update), and
                        // an idle car kept room for its largest burst (issue 10: 2 KiB per car
                        // after the session's replay at connect).
                        state.services = []
                        state.servicesHead = 0
                    }
                    return .services(input)
                }
                if !state.wakes.isEmpty {
                    return .services(ServiceInput(channel: state.wakes.removeFirst(), ServiceWake()))
                }
            }
            if state.head == state.received.count, let reason = state.closed {
                state.closed = .none
                return .transport(.closed(reason))
            }
            return nil
        }
    }

    /// Stops taking output-producing inputs until the transport has sent all but
    /// ``outboundLowWater`` bytes (or closed).
    func pauseForOutbound() {
        let pause = state.withLock { state -> Bool in
            guard !state.outboundPaused else { return false }
            state.outboundPaused = true
            return true
        }
        guard pause else { return }
        stream.whenOutboundAtMost(CarMailbox.outboundLowWater) { [self] in
            let waiter = state.withLock { state -> UnsafeContinuation<Void, Never>? in
                state.outboundPaused = false
                return state.takeWaiterIfReady()
            }
            waiter?.resume()
        }
    }

    /// Whether output-producing inputs are held back (a test seam).
    var isPausedForOutbound: Bool { state.withLock { $0.outboundPaused } }

    /// The worker is done: later inputs are dropped and held ones released.
    func finish() {
        state.withLock { state in
            state.finished = true
            state.received = []
            state.receivedBytes = 0
            state.services = []
            state.inline = nil  // it holds the worker, which holds this mailbox
        }
    }
}

/// A car's worker as its mailbox holds it for ``CarMailbox/wake(channel:inlineAllowed:)``.
///
/// `@unchecked Sendable` because `CarWorker` is not Sendable: it is only ever used on `loop`'s
/// thread. The worker's task runs there (the stream's executor preference, checked when it is
/// installed), and the mailbox calls ``wake(channel:)`` only on that thread (checked on each call)
/// while the task is parked in ``CarMailbox/next(waited:)``, i.e. between two of its inputs and
/// never during one: no two accesses to the worker overlap.
struct InlineWorker: @unchecked Sendable {
    private let worker: CarWorker
    let loop: EventLoop

    init(worker: CarWorker, loop: EventLoop) {
        self.worker = worker
        self.loop = loop
    }

    func wake(channel: UInt8) {
        precondition(loop.isCurrentThread, "a car's worker runs inline only on its own reactor thread")
        worker.wake(channel: channel)
    }
}
