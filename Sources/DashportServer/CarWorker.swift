import DashportClock
import DashportDigest
import DashportLink
import DashportLog
import DashportRecording
import DashportServices
import DashportTransport

/// The state of one car connection's worker and its synchronous steps: one input in, the link's
/// and the services' actions performed, the deadline re-armed. ``CarConnection/run()`` owns it
/// and drives it from the car's ``CarMailbox``; what must wait (a yield between decoding slices,
/// the message-rate throttle) stays in that loop.
///
/// One step can also run without a turn of the worker's task: while the task is parked in
/// ``CarMailbox/next(waited:)`` on the reactor thread it runs on, the mailbox runs an audio wake
/// (``wake(channel:)``) in the caller's turn: the pump writes each car's DATA in its own timer
/// callback instead of resuming 100 tasks for it (see ``CarMailbox/runInline(on:_:)``).
///
/// Not Sendable: the worker's task and, while that task is parked, its reactor thread (the same
/// thread) are the only callers.
final class CarWorker {
    let stream: any ByteStream
    let context: ServerContext
    let logger: Logger
    let link: PhoneLink
    let mailbox: CarMailbox
    /// The connection's id in the registry (for `dashport ctl cars`).
    let id: UInt64
    let ticket: UInt64?
    var services: CarServices
    private var timer: DeadlineTimer
    /// The link closed or the transport went away: the worker stops after this input.
    private(set) var finished = false
    /// What this car holds in unfinished messages, as charged to the process-wide budget.
    private var charged = 0
    /// When the car's unread output first passed the high-water mark (nil: it reads).
    private var stalledSince: Duration?
    /// A close that ``CarConnection`` logs with the host's repeated-close budget.
    let logClose: (LinkCloseReason, LinkPhase) -> Void

    init(
        stream: any ByteStream, context: ServerContext, logger: Logger, link: PhoneLink, mailbox: CarMailbox, id: UInt64,
        ticket: UInt64?, logClose: @escaping (LinkCloseReason, LinkPhase) -> Void
    ) {
        self.stream = stream
        self.context = context
        self.logger = logger
        self.link = link
        self.mailbox = mailbox
        self.id = id
        self.ticket = ticket
        self.logClose = logClose
        self.timer = DeadlineTimer(scheduler: context.deadlines, inputs: mailbox)
        let registry = context.registry
        self.services = CarServices(context: context, logger: logger, inputs: mailbox) { change in registry.update(id, change) }
    }

    var now: Duration { context.core.clock.now.sinceOrigin }

    /// Starts the link's clock.
    func begin() {
        perform(link.tick(now: now))
        timer.arm(at: link.nextDeadline)
    }

    // MARK: Steps

    /// Bytes from the car: a deadline that passed first, then the link's first slice of messages.
    func receive(_ bytes: [UInt8], now: Duration) {
        // A deadline that passed while bytes queued is handled before them, so a flood
        // cannot push its own handshake deadline back.
        if let deadline = link.nextDeadline, deadline <= now { perform(link.tick(now: now)) }
        guard !finished else { return }
        let actions = link.receive(bytes, now: now)
        // Valid handshake steps keep this connection ahead of sockets that sent nothing
        // valid; told before the answer goes out, so the car's next step finds it kept.
        // Only during the setup: once AUTH_COMPLETE has linked the car there is nothing to tell,
        // and every audio ACK would take the admission's lock for nothing.
        if let ticket, link.phase.isSetup { CarConnection.reportProgress(link.phase, ticket: ticket, to: context.admission) }
        perform(actions)
    }

    /// The next slice of messages the link left undecoded (``PhoneLink/hasMoreToDecode``).
    func decodeMore() {
        perform(link.receive([], now: now))
    }

    /// Charges what the car holds in unfinished messages against the process-wide budget; closes
    /// it when all cars together hold too much.
    func chargeReassembly() {
        // Unfinished messages count against the process-wide budget, whatever the phase.
        let held = finished ? 0 : link.pendingMessageBytes
        if context.reassembly.recharge(from: charged, to: held) {
            logger.warning(
                "closing connection: all cars together hold more than \(context.reassembly.limit) bytes in unfinished messages; this car holds \(held)",
                ["phase": "\(link.phase)"])
            _ = context.reassembly.recharge(from: held, to: 0)
            charged = 0
            abort()
            return
        }
        charged = held
    }

    /// A deadline came: the stall limit, the link's timers, the services' timers.
    func tick(now: Duration) {
        timer.fired()
        if let since = stalledSince, now - since >= context.writeStallLimit {
            logger.warning(
                "closing connection: the car left \(stream.outboundBufferedBytes) bytes unread for \(context.writeStallLimit)",
                ["phase": "\(link.phase)"])
            abort()
            return
        }
        perform(link.tick(now: now))
        perform(sendAll(services.tick(now: now), now: now))
    }

    func sayByeBye(now: Duration) {
        perform(link.sayByeBye(now: now))
    }

    func handle(_ input: ServiceInput, now: Duration) {
        perform(sendAll(services.handle(input, now: now), now: now))
    }

    /// An audio wake run by the mailbox in the reactor's turn while the worker's task is parked:
    /// the step ``CarConnection/run()`` would run for it, ending like every input.
    func wake(channel: UInt8) {
        guard !finished else { return }
        handle(ServiceInput(channel: channel, ServiceWake()), now: now)
        if finished {
            mailbox.yield(.tick)  // the parked task wakes, sees it, and ends the connection
        } else {
            endOfInput(now: now)
        }
    }

    /// The transport went away.
    func transportClosed() {
        finished = true
    }

    /// Resets the connection and stops.
    func abort() {
        stream.abort()
        finished = true
    }

    /// After every input: hold back a car that does not read, re-arm the one deadline.
    func endOfInput(now: Duration) {
        if stream.outboundBufferedBytes > CarMailbox.outboundHighWater {
            // Stop serving this car until it reads; close it if it never does.
            if stalledSince == nil { stalledSince = now }
            mailbox.pauseForOutbound()
        } else if !mailbox.isPausedForOutbound {
            stalledSince = nil
        }
        var deadline = link.nextDeadline
        if let next = services.nextDeadline, deadline.map({ next < $0 }) ?? true { deadline = next }
        if let since = stalledSince {
            let stall = since + context.writeStallLimit
            if deadline.map({ stall < $0 }) ?? true { deadline = stall }
        }
        timer.arm(at: deadline)
    }

    /// The connection is over: its deadline, budget share and services let go.
    func stop() {
        _ = context.reassembly.recharge(from: charged, to: 0)
        charged = 0
        timer.cancel()
        services.stop()
    }

    // MARK: Actions

    func perform(_ actions: [LinkAction]) {
        // Every record in `actions` was encrypted when the link returned them; what handling an
        // event sends (a `busy` answer, the media channel's hello) is encrypted now, after them.
        // Written before the rest of `actions`, it reached the car out of sequence and the car's
        // TLS refused it (bad record MAC): the records go out first.
        if !finished { for case .send(let bytes) in actions { stream.write(bytes) } }
        for action in actions where !finished {
            switch action {
            case .send:
                break
            case .event(let event):
                if case .authComplete = event, let ticket {
                    var refused = true
                    switch context.admission.authenticated(ticket) {
                    case .full(let limit):
                        logger.warning("closing: \(limit) cars are linked already (max-connections)")
                    case .fullForAddress(let limit, let host):
                        logger.warning("closing: \(limit) cars from \(host) are linked already (max-cars-per-address)")
                    case .linked, .gone: refused = false
                    }
                    if refused {
                        stream.close()
                        finished = true
                        continue
                    }
                }
                if ConnectedCar.describes(event) { context.registry.update(id) { $0.observe(event) } }  // `dashport ctl cars`
                let outgoing = services.linkEvent(event, now: now)
                perform(sendAll(outgoing, now: now))
            case .close(let reason):
                logClose(reason, link.phase)
                if CarConnection.resets(reason) { stream.abort() } else { stream.close() }
                finished = true
            }
        }
    }

    /// Hands each service message to the link; a message the link refuses (channel closed,
    /// too large) is logged and dropped: it never ends the connection.
    private func sendAll(_ messages: [OutgoingMessage], now: Duration) -> [LinkAction] {
        guard messages.count != 1 else { return send(messages[0]) }  // an audio packet, an answer
        var actions: [LinkAction] = []
        for message in messages { actions += send(message) }
        return actions
    }

    private func send(_ message: OutgoingMessage) -> [LinkAction] {
        do {
            return try link.send(channel: message.channel, messageId: message.messageId, body: message.body)
        } catch {
            logger.warning("dropped a service message: \(error)", ["channel": "\(message.channel)", "message": Hex.id(message.messageId)])
            return []
        }
    }
}
