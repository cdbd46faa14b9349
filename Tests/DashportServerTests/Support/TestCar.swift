import DashportTestSupport
import Foundation
import Testing
import DashportHeadUnit
import DashportLink
import DashportLog
import DashportTLS
import DashportTransport

/// A head unit over real TCP for the server's tests: the car-role link on a TCP connection,
/// recording every event, with bounded waits that fail the test instead of hanging.
actor TestCar {
    let connection: TCPConnection
    let link: HeadUnitLink
    private(set) var events: [HeadUnitEvent] = []
    private(set) var closeReason: LinkCloseReason?
    /// What the servers looked like when this car's link closed itself (see ``waitUntil``).
    private var closedState: String?
    /// The server closed the TCP connection (or it failed).
    private(set) var transportClosed = false
    private var ticker: Task<Void, Never>?
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant

    static let clientContext: TLSContext = {
        // Safe to force: generating a test identity and a client context only fails if OpenSSL
        // itself is broken, and then every test here is meaningless anyway.
        let identity = try! TLSIdentity.generate(commonName: "dashport test car")
        return try! TLSContext(.client(identity: identity))
    }()

    private init(connection: TCPConnection, link: HeadUnitLink) {
        self.connection = connection
        self.link = link
        self.start = clock.now
    }

    /// Connects and, unless `startLink` is false, sends VERSION_REQUEST at once.
    static func connect(
        to address: ListenAddress, configuration: HeadUnitConfiguration = HeadUnitConfiguration(), startLink: Bool = true
    ) async throws -> TestCar {
        let connection = try await TCPClient.connect(to: address)
        // Not the 10 s of a real car: when the whole suite starts at once, a car's first turns can
        // come that late (the server's side is TestServer's, also 120 s).
        var configuration = configuration
        configuration.handshakeDeadline = .seconds(120)
        let link = HeadUnitLink(configuration: configuration, tls: try TLSSession(context: clientContext))
        let car = TestCar(connection: connection, link: link)
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
        ticker = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(50))
                await self?.tick()
            }
        }
    }

    private var now: Duration { clock.now - start }

    private func transport(_ event: TransportEvent) {
        switch event {
        case .received(let bytes): perform(link.receive(bytes, now: now))
        case .closed: transportClosed = true; ticker?.cancel()
        }
    }

    private func tick() { perform(link.tick(now: now)) }

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
    }

    /// Writes raw bytes, bypassing the link (garbage, broken frames).
    func writeRaw(_ bytes: [UInt8]) { connection.write(bytes) }

    /// Sends through the link's unchecked path (e.g. a message on a channel the phone never opened).
    func sendUnchecked(channel: UInt8, messageId: UInt16, body: [UInt8], encrypted: Bool = true) {
        perform(link.sendUnchecked(channel: channel, messageId: messageId, body: body, encrypted: encrypted))
    }

    func sayByeBye() { perform(link.sayByeBye(now: now)) }

    func abort() {
        ticker?.cancel()
        connection.abort()
    }

    /// Waits until `condition` holds for this car's state, up to `timeout`.
    func waitUntil(
        _ what: String, timeout: Duration = .seconds(60), sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: @Sendable (isolated TestCar) -> Bool
    ) async throws {
        let deadline = clock.now + timeout
        while !condition(self) {
            // A closed connection brings nothing more: fail now rather than at the deadline.
            if clock.now > deadline || transportClosed {
                Issue.record(
                    Comment(rawValue: "timed out waiting for \(what); events: \(events.map { "\($0)" }.suffix(8))\n"
                        + "this car: link \(link.phase), tcp \(connection.debugState)\n"
                        + (closedState.map { "when its link closed: \($0)\nnow: " } ?? "") + TestServer.diagnostics()),
                    sourceLocation: sourceLocation)
                throw TestTimeout(what: what)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    var openedChannels: Set<UInt8> {
        Set(events.compactMap { if case .channelOpened(let service) = $0 { service.channel } else { nil } })
    }
    var pingsReceived: Int {
        events.filter { if case .pingReceived = $0 { true } else { false } }.count
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
