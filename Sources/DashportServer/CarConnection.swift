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
        // The car's lane: its reactor's timer wheel and shard of memoised answers.
        let context = context.serving(stream)
        self.context = context
        var logger = context.logger.with("peer", stream.peerDescription)
        if let reactor = context.reactor, context.lanes.count > 1 { logger = logger.with("reactor", "\(reactor)") }
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
        guard
            let id = context.registry.add(
                peer: stream.peerDescription, reactor: context.reactor, mailbox: mailbox, shutdown: { mailbox.yield(.shutdown) })
        else {
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
        let worker = CarWorker(
            stream: stream, context: context, logger: logger, link: link, mailbox: mailbox, id: id, ticket: ticket
        ) { [self] reason, phase in logClose(reason, phase: phase) }
        stream.start { event in mailbox.yield(.transport(event)) }
        // On the reactor that owns the socket (TCP), an audio wake runs in the pump's own turn
        // while this task is parked, instead of resuming it (see CarWorker).
        if let loop = stream.preferredExecutor as? EventLoop, loop.isCurrentThread {
            mailbox.runInline(on: loop, worker)
        }

        worker.begin()
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
            if worker.finished { break }  // a step the mailbox ran inline ended the connection
            handledInARow = waited ? 1 : handledInARow + 1
            let now = worker.now
            switch input {
            case .transport(.received(let bytes)):
                let before = link.messagesReceived
                worker.receive(bytes, now: now)
                // At most `maxMessagesPerReceive` per slice, with the other cars served between
                // slices; no new bytes are taken meanwhile, so nothing grows.
                while link.hasMoreToDecode && !worker.finished {
                    await Task.yield()
                    worker.decodeMore()
                }
                if !worker.finished, await throttle(Int(link.messagesReceived &- before), phase: link.phase, rate: &rate) {
                    worker.abort()
                }
                worker.chargeReassembly()
            case .transport(.closed(let error)):
                if let error {
                    logger.warning("connection lost during \(link.phase): \(error)")
                } else {
                    logger.info("car disconnected during \(link.phase)")
                }
                worker.transportClosed()
            case .tick:
                worker.tick(now: now)
            case .shutdown:
                worker.sayByeBye(now: now)
            case .overflow:
                logger.warning(
                    "closing connection: more than \(CarMailbox.maxPendingServiceInputs) core answers and pushes pending; the car is not keeping up",
                    ["phase": "\(link.phase)"])
                worker.abort()
            case .services(let serviceInput):
                worker.handle(serviceInput, now: now)
            }
            if worker.finished { break }
            worker.endOfInput(now: now)
        }
        worker.stop()
        mailbox.finish()
        if !worker.finished { stream.abort() }
        if let recorder, let directory = context.recordDirectory {
            // Off the reactor this worker may run on: writing a file must not hold up the
            // sockets of every other car. Before the registry forgets the car, so a server that
            // has stopped has written every recording.
            await withTaskExecutorPreference(globalConcurrentExecutor) {
                SessionFiles.save(recorder, in: directory, logger: logger)
            }
        }
    }

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

    /// Whether a link that closed for `reason` is reset rather than closed in order: a peer closed
    /// for flooding its setup is owed no answer, and an orderly close would first read and drop up to
    /// 256 KiB of what it queued (so the kernel does not answer it with a reset anyway), a recv per
    /// 4 KiB on the reactor thread, for each of the hundreds of connections a second a flooder makes.
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
