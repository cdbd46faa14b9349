import DashportClock
import DashportDigest
import DashportLink
import DashportRecording
import DashportServices
import DashportLog
import DashportTLS
import DashportTransport

/// Everything that can happen to one car connection, funnelled into its bounded ``CarMailbox`` so
/// the sans-IO stack is only ever touched by the connection's own task.
enum CarInput: Sendable {
    /// Bytes arrived, or the transport closed.
    case transport(TransportEvent)
    /// A deadline the stack asked for has come.
    case tick
    /// The server is stopping: say BYEBYE.
    case shutdown
    /// Something for the services: a core answer or a core push.
    case services(ServiceInput)
    /// The car's mailbox overflowed (it is not keeping up with core pushes): close it.
    case overflow
}

/// Runs one car: bytes from the transport into the link, the link's actions out to the transport,
/// service traffic between the link and the core, timers from the link's deadlines.
///
/// The link and the services are sans-IO values owned by this task alone; everything else reaches
/// them as a ``CarInput`` through the connection's ``CarMailbox``, which bounds what a car can make
/// the server hold (see there). One car's failure (bad bytes, a TLS error, a dead socket) ends only
/// this task.
///
/// The task runs where its stream prefers (``ByteStream/preferredExecutor``): for TCP, on the
/// reactor that owns the socket, so a request is read, answered and its answer sent in one turn
/// of that thread. It must therefore never block: what may take long (core calls, provider calls,
/// artwork) runs in the services' own tasks on the cooperative pool and comes back as an input,
/// and the one file it writes (a recording) is written off the reactor.
struct CarConnection {
    let stream: any ByteStream
    let context: ServerContext
    let logger: Logger
    /// This connection's place in ``HandshakeAdmission``; nil when it was not admitted through it.
    let ticket: UInt64?
    /// The peer's address (no port) over TCP: whose close warnings ``RepeatedCloseLog`` counts.
    let host: String?

    /// Inputs handled before the worker yields its thread to other tasks.
    static let inputsPerTurn = 8

    init(stream: any ByteStream, context: ServerContext, ticket: UInt64? = nil, host: String? = nil) {
        self.stream = stream
        self.context = context
        var logger = context.logger.with("peer", stream.peerDescription)
        // An address closed for bad input more often than its share of warnings logs quietly: a
        // flooder reconnecting hundreds of times a second leaves a count, not a line each.
        if let host, context.closeLog.isQuiet(host, now: context.core.clock.now.sinceOrigin) {
            logger.level = max(logger.level, .warning)
        }
        self.logger = logger
        self.ticket = ticket
        self.host = host
    }

    func run() async {
        defer { if let ticket { context.admission.finished(ticket) } }
        let mailbox = CarMailbox(stream: stream)
        guard let id = context.registry.add(peer: stream.peerDescription, mailbox: mailbox, shutdown: { mailbox.yield(.shutdown) }) else {
            logger.notice("refused: the server is shutting down")
            stream.abort()
            return
        }
        defer { context.registry.remove(id) }
        logger.info("car connected", ["cars": "\(context.registry.count)"])

        let link: PhoneLink
        do {
            link = PhoneLink(configuration: context.link, tls: try TLSSession(context: context.tls, logger: logger), logger: logger)
        } catch {
            logger.error("cannot start TLS for this car: \(error)")
            stream.abort()
            return
        }
        let recorder = context.recordDirectory.map { _ in
            SessionRecorder(side: .server, description: "recorded by dashport serve --record-dir: car \(stream.peerDescription)")
        }
        if let recorder { link.tap = recorder.tap(car: recorder.addCar()) }
        // The link and the services take `now` as time since the server clock's origin, the same
        // time line the session's position anchors are on.
        let clock = context.core.clock
        var timer = DeadlineTimer(scheduler: context.deadlines, inputs: mailbox)
        let registry = context.registry
        var services = CarServices(context: context, logger: logger, inputs: mailbox) { change in registry.update(id, change) }
        stream.start { event in mailbox.yield(.transport(event)) }

        var finished = false
        /// What this car holds in unfinished messages, as charged to the process-wide budget.
        var charged = 0
        /// When the car's unread output first passed the high-water mark (nil: it reads).
        var stalledSince: Duration?
        func perform(_ actions: [LinkAction]) {
            // Every record in `actions` was encrypted when the link returned them; what handling
            // an event sends (a `busy` answer, the media channel's hello) is encrypted now, after
            // them. Written before the rest of `actions`, it reached the car out of sequence and
            // the car's TLS refused it (bad record MAC): the records go out first.
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
                    let outgoing = services.linkEvent(event, now: clock.now.sinceOrigin)
                    perform(sendAll(outgoing, on: link, now: clock.now.sinceOrigin))
                case .close(let reason):
                    logClose(reason, phase: link.phase)
                    if Self.resets(reason) { stream.abort() } else { stream.close() }
                    finished = true
                }
            }
        }

        perform(link.tick(now: clock.now.sinceOrigin))
        timer.arm(at: link.nextDeadline)
        var rate = MessageRateBudget(context.messageRate)
        /// Inputs taken one after the other without waiting for any.
        var handledInARow = 0
        while true {
            // `next()` returns at once while inputs wait, so a flooding car would keep this thread
            // (the reactor, or one of two pool threads on the target) forever: give the other cars
            // and the sockets a turn after a run of inputs. Only after a run: a car whose input
            // came after a wait has not kept anyone from their turn, and yielding then would hold
            // its answer back a turn of the loop for nothing.
            if handledInARow >= CarConnection.inputsPerTurn {
                handledInARow = 0
                await Task.yield()
            }
            var waited = false
            let input = await mailbox.next(waited: &waited)
            handledInARow = waited ? 1 : handledInARow + 1
            let now = clock.now.sinceOrigin
            switch input {
            case .transport(.received(let bytes)):
                // A deadline that passed while bytes queued is handled before them, so a flood
                // cannot push its own handshake deadline back.
                if let deadline = link.nextDeadline, deadline <= now { perform(link.tick(now: now)) }
                if !finished {
                    let before = link.messagesReceived
                    let actions = link.receive(bytes, now: now)
                    // Valid handshake steps keep this connection ahead of sockets that sent nothing
                    // valid; told before the answer goes out, so the car's next step finds it kept.
                    if let ticket { Self.reportProgress(link.phase, ticket: ticket, to: context.admission) }
                    perform(actions)
                    // At most `maxMessagesPerReceive` per slice, with the other cars served between
                    // slices; no new bytes are taken meanwhile, so nothing grows.
                    while link.hasMoreToDecode && !finished {
                        await Task.yield()
                        perform(link.receive([], now: clock.now.sinceOrigin))
                    }
                    if !finished, await throttle(Int(link.messagesReceived &- before), phase: link.phase, rate: &rate) {
                        stream.abort()
                        finished = true
                        break
                    }
                }
                // Unfinished messages count against the process-wide budget, whatever the phase.
                let held = finished ? 0 : link.pendingMessageBytes
                if context.reassembly.recharge(from: charged, to: held) {
                    logger.warning(
                        "closing connection: all cars together hold more than \(context.reassembly.limit) bytes in unfinished messages; this car holds \(held)",
                        ["phase": "\(link.phase)"])
                    _ = context.reassembly.recharge(from: held, to: 0)
                    charged = 0
                    stream.abort()
                    finished = true
                    break
                }
                charged = held
            case .transport(.closed(let error)):
                if let error {
                    logger.warning("connection lost during \(link.phase): \(error)")
                } else {
                    logger.info("car disconnected during \(link.phase)")
                }
                finished = true
            case .tick:
                timer.fired()
                if let since = stalledSince, now - since >= context.writeStallLimit {
                    logger.warning(
                        "closing connection: the car left \(stream.outboundBufferedBytes) bytes unread for \(context.writeStallLimit)",
                        ["phase": "\(link.phase)"])
                    stream.abort()
                    finished = true
                    break
                }
                perform(link.tick(now: now))
                perform(sendAll(services.tick(now: now), on: link, now: now))
            case .shutdown:
                perform(link.sayByeBye(now: now))
            case .overflow:
                logger.warning(
                    "closing connection: more than \(CarMailbox.maxPendingServiceInputs) core answers and pushes pending; the car is not keeping up",
                    ["phase": "\(link.phase)"])
                stream.abort()
                finished = true
            case .services(let serviceInput):
                perform(sendAll(services.handle(serviceInput, now: now), on: link, now: now))
            }
            if finished { break }
            if stream.outboundBufferedBytes > CarMailbox.outboundHighWater {
                // Stop serving this car until it reads; close it if it never does.
                if stalledSince == nil { stalledSince = now }
                mailbox.pauseForOutbound()
            } else if !mailbox.isPausedForOutbound {
                stalledSince = nil
            }
            let stallDeadline = stalledSince.map { $0 + context.writeStallLimit }
            timer.arm(at: [link.nextDeadline, services.nextDeadline, stallDeadline].compactMap { $0 }.min())
        }
        _ = context.reassembly.recharge(from: charged, to: 0)
        timer.cancel()
        services.stop()
        mailbox.finish()
        if !finished { stream.abort() }
        if let recorder, let directory = context.recordDirectory {
            // Off the reactor this worker may run on: writing a file must not hold up the
            // sockets of every other car. Before the registry forgets the car, so a server that
            // has stopped has written every recording.
            await withTaskExecutorPreference(globalConcurrentExecutor) {
                SessionFiles.save(recorder, in: directory, logger: logger)
            }
        }
    }

    /// Hands each service message to the link; a message the link refuses (channel closed,
    /// too large) is logged and dropped: it never ends the connection.
    private func sendAll(_ messages: [OutgoingMessage], on link: PhoneLink, now: Duration) -> [LinkAction] {
        var actions: [LinkAction] = []
        for message in messages {
            do {
                actions += try link.send(channel: message.channel, messageId: message.messageId, body: message.body)
            } catch {
                logger.warning(
                    "dropped a service message: \(error)",
                    [
                        "channel": "\(message.channel)", "message": Hex.id(message.messageId),
                    ])
            }
        }
        return actions
    }

    /// Whether a link that closed for `reason` is reset rather than closed in order: a peer closed
    /// for flooding its setup is owed no answer, and an orderly close would first read and drop up to
    /// 256 KiB of what it queued (so the kernel does not answer it with a reset anyway), a recv per
    /// 4 KiB on the reactor thread, for each of the hundreds of connections a second a flooder makes.
    /// Charges `messages` against the car's message budget and, past it, waits (reading paused:
    /// the mailbox fills and the reactor stops reading this socket). True when the car has been
    /// over its budget so long that it is to be closed.
    private func throttle(_ messages: Int, phase: LinkPhase, rate: inout MessageRateBudget) async -> Bool {
        guard phase == .running || phase == .discovery else { return false }
        let wasOver = rate.isOver
        switch rate.charge(messages, now: context.core.clock.now.sinceOrigin) {
        case .within:
            return false
        case .slowDown(let wait):
            if !wasOver {
                logger.warning(
                    "car sends more than \(rate.limits.perSecond) messages a second: reading from it is paused while it is over",
                    ["burst": "\(rate.limits.burst)"])
            }
            try? await context.core.clock.sleep(for: wait)
            return false
        case .close:
            logger.warning(
                "closing connection: the car sent more than \(rate.limits.perSecond) messages a second for \(rate.limits.closeAfter)")
            return true
        }
    }

    /// Tells admission how far the handshake got (version exchanged, TLS done).
    static func reportProgress(_ phase: LinkPhase, ticket: UInt64, to admission: HandshakeAdmission) {
        switch phase {
        case .versionExchange: break
        case .tlsHandshake: admission.progressed(ticket, to: 1)
        default: admission.progressed(ticket, to: 2)
        }
    }

    static func resets(_ reason: LinkCloseReason) -> Bool {
        switch reason {
        case .notASetupFrame, .setupFramesExceeded, .setupInputExceeded: true
        default: false
        }
    }

    private func logClose(_ reason: LinkCloseReason, phase: LinkPhase) {
        switch reason {
        case .byeBye, .peerByeBye:
            logger.info("link closed: \(reason)")
        default:
            guard let host else {
                logger.warning("closing connection: \(reason)", ["phase": "\(phase)"])
                return
            }
            let limit = context.closeLog.limits
            let decision = context.closeLog.closing(host, now: context.core.clock.now.sinceOrigin)
            for (other, count) in decision.suppressed {
                context.logger.notice("\(count) more closes from \(other) suppressed (more than \(limit.perAddress) in \(limit.window))")
            }
            guard decision.log else { return }
            let further = decision.lastInWindow ? "; further closes from \(host) within \(limit.window) are counted, not logged" : ""
            logger.warning("closing connection: \(reason)\(further)", ["phase": "\(phase)"])
        }
    }
}
