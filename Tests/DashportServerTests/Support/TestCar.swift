import DashportClock
import DashportTestSupport
import Foundation
import Testing
import DashportHeadUnit
import DashportLink
import DashportLog
import DashportTLS
import DashportTransport

/// A head unit over real TCP for the server's tests: the car-role link on a TCP connection, ticked
/// at its deadlines on the clock seam, recording every event, with bounded waits (``eventually``)
/// that fail the test instead of hanging.
actor TestCar {
    let connection: TCPConnection
    let link: HeadUnitLink
    private(set) var events: [HeadUnitEvent] = []
    private(set) var closeReason: LinkCloseReason?
    /// What the servers looked like when this car's link closed itself (see ``waitUntil``).
    private var closedState: String?
    /// The server closed the TCP connection (or it failed).
    private(set) var transportClosed = false
    private let clock: any DashportClock
    /// Sleeps until the link's next deadline, then ticks it (re-armed after every step).
    private var timer: Task<Void, Never>?
    private var timerDeadline: Duration?

    private init(connection: TCPConnection, link: HeadUnitLink, clock: any DashportClock) {
        self.connection = connection
        self.link = link
        self.clock = clock
    }

    /// Connects and, unless `startLink` is false, sends VERSION_REQUEST at once.
    static func connect(
        to address: ListenAddress, configuration: HeadUnitConfiguration = HeadUnitConfiguration(), startLink: Bool = true,
        clock: any DashportClock = SystemClock()
    ) async throws -> TestCar {
        let connection = try await TCPClient.connect(to: address)
        let configuration = configuration.patient  // the server's side is TestServer's, as patient
        let link = HeadUnitLink(configuration: configuration, tls: try TLSSession(context: TestTLS.carContext.get()))
        let car = TestCar(connection: connection, link: link, clock: clock)
        await car.begin(startLink: startLink)
        return car
    }

    private func begin(startLink: Bool) {
        let (stream, continuation) = AsyncStream.makeStream(of: TransportEvent.self)
        connection.start { continuation.yield($0) }
        Task { [weak self] in
            for await event in stream { await self?.transport(event) }
        }
        if startLink { perform(link.start(now: now)) }
    }

    private var now: Duration { clock.now.sinceOrigin }

    /// Set by ``freeze()``: the car's link says nothing more (no answers, no pings), so raw bytes
    /// written afterwards reach the phone exactly as written, never interleaved with the link's.
    private var frozen = false

    /// Stops the car's link from sending anything; the socket stays open.
    func freeze() {
        frozen = true
        stopTimer()
    }

    private func transport(_ event: TransportEvent) {
        switch event {
        case .received(let bytes): if !frozen { perform(link.receive(bytes, now: now)) }
        case .closed:
            transportClosed = true
            stopTimer()
        }
    }

    private func tick() {
        timerDeadline = nil
        guard !frozen else { return }
        perform(link.tick(now: now))
    }

    private func rearmTimer() {
        let next = transportClosed ? nil : link.nextDeadline
        guard next != timerDeadline else { return }
        timer?.cancel()
        timerDeadline = next
        guard let next else {
            timer = nil
            return
        }
        // Rounded up to the clock's millisecond, so the `now` read on waking is never before it.
        let wake = ClockInstant(sinceOrigin: next + .nanoseconds(999_999))
        timer = Task { [weak self, clock] in
            do { try await clock.sleep(until: wake) } catch { return }
            await self?.tick()
        }
    }

    private func stopTimer() {
        timer?.cancel()
        timer = nil
        timerDeadline = nil
    }

    private func perform(_ actions: [HeadUnitAction]) {
        for action in actions {
            switch action {
            case .send(let bytes): connection.write(bytes)
            case .event(let event): events.append(event)
            case .close(let reason):
                closeReason = reason
                // Both ends as they were when this car gave up, for a test that then times out.
                closedState = "closed at \(now) (\(reason)); " + TestServer.diagnostics()
                connection.close()
            }
        }
        rearmTimer()
    }

    /// Writes raw bytes, bypassing the link (garbage, broken frames).
    func writeRaw(_ bytes: [UInt8]) { connection.write(bytes) }

    /// Sends through the link's unchecked path (e.g. a message on a channel the phone never opened).
    func sendUnchecked(channel: UInt8, messageId: UInt16, body: [UInt8], encrypted: Bool = true) {
        perform(link.sendUnchecked(channel: channel, messageId: messageId, body: body, encrypted: encrypted))
    }

    /// Sends these messages through the link's unchecked path in one write, so the server reads
    /// them together (one `receive`, one batch of actions).
    func sendUncheckedTogether(_ messages: [(channel: UInt8, messageId: UInt16, body: [UInt8])]) {
        var bytes: [UInt8] = []
        for message in messages {
            for case .send(let frames) in link.sendUnchecked(
                channel: message.channel, messageId: message.messageId, body: message.body, encrypted: true)
            {
                bytes += frames
            }
        }
        connection.write(bytes)
    }

    func sayByeBye() { perform(link.sayByeBye(now: now)) }

    func abort() {
        stopTimer()
        connection.abort()
    }

    /// Waits until `condition` holds for this car's state, up to `timeout`.
    func waitUntil(
        _ what: String, timeout: Duration = .seconds(60), sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: @Sendable (isolated TestCar) -> Bool
    ) async throws {
        var timedOut: (any Error)?
        do {
            // A closed connection brings nothing more: stop waiting then rather than at the deadline.
            try await eventually(what, timeout: timeout, sourceLocation: sourceLocation) { condition(self) || transportClosed }
        } catch {
            timedOut = error
        }
        guard timedOut != nil || !condition(self) else { return }
        Issue.record(
            Comment(
                rawValue: (timedOut == nil ? "the connection closed before \(what)" : "timed out waiting for \(what)")
                    + "; events: \(events.map { "\($0)" }.suffix(8))\n"
                    + "this car: link \(link.phase), tcp \(connection.debugState)\n"
                    + (closedState.map { "when its link closed: \($0)\nnow: " } ?? "") + TestServer.diagnostics()),
            sourceLocation: sourceLocation)
        throw timedOut ?? TestTimeout(what: what)
    }

    var openedChannels: Set<UInt8> {
        Set(events.compactMap { if case .channelOpened(let service) = $0 { service.channel } else { nil } })
    }
    var pingsReceived: Int {
        events.filter { if case .pingReceived = $0 { true } else { false } }.count
    }
    /// Round trips of this car's own pings (``HeadUnitConfiguration/pingInterval``), in order.
    var pingRoundTrips: [Duration] {
        events.compactMap { if case .pingAnswered(let rtt, _) = $0 { rtt } else { nil } }
    }
    var tls: TLSSummary? {
        events.lazy.compactMap { if case .tlsEstablished(let summary) = $0 { summary } else { nil } }.first
    }
    var version: AAPVersion? {
        events.lazy.compactMap { if case .versionNegotiated(let version) = $0 { version } else { nil } }.first
    }
    var byeByeReceived: Bool {
        events.contains { if case .byeByeReceived = $0 { true } else { false } }
    }
    func messages(on channel: UInt8) -> [(id: UInt16, body: [UInt8])] {
        events.compactMap { if case .message(channel, let id, let body) = $0 { (id, body) } else { nil } }
    }
}
