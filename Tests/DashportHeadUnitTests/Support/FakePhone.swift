import DashportClock
import DashportTestSupport
import DashportLink
import DashportMessages
import DashportTLS
import DashportTransport
import Synchronization
import Testing
import DashportLog

/// A phone for the client tests: a TCP listener on 127.0.0.1 (any port) that runs a real
/// ``PhoneLink`` per connection, with real TLS and the system clock (the clock seam's), and answers the Dashport
/// media channel with a ``FakeMediaServer``. Stands in for the server's connection driver.
final class FakePhone: Sendable {
    let listener: TCPListener
    private let accepted = Accepted()

    private final class Accepted: Sendable {
        let connections = Mutex<[FakePhoneConnection]>([])
    }

    var address: ListenAddress { listener.boundAddress }

    /// The phone pings every 20 ms, so tests see pings at once.
    static let quickPings = LinkConfiguration(pingInterval: .milliseconds(20), pingIntervalRange: .milliseconds(1) ... .seconds(30))

    init(configuration: LinkConfiguration = FakePhone.quickPings, media: FakeMediaServer = FakeMediaServer()) throws {
        // 127.0.0.1 is a numeric address, so this never fails.
        let loopback = ListenAddress(host: "127.0.0.1", port: 0)!
        listener = try TCPListener.bind(loopback, logger: .silent)
        let context = try TestTLS.phoneContext.get()
        listener.start { [accepted] connection in
            let phone = FakePhoneConnection(connection: connection, configuration: configuration, context: context, media: media)
            accepted.connections.withLock { $0.append(phone) }
            Task { await phone.begin() }
        }
    }

    /// The first connection the phone accepted, waiting for it.
    func firstConnection(sourceLocation: SourceLocation = #_sourceLocation) async throws -> FakePhoneConnection {
        let accepted = accepted
        var first: FakePhoneConnection?
        try await eventually("the phone to accept a connection", sourceLocation: sourceLocation) {
            first = accepted.connections.withLock { $0.first }
            return first != nil
        }
        guard let first else { throw TestTimeout(what: "the phone to accept a connection") }
        return first
    }

    deinit { listener.shutdown() }
}

/// One accepted connection: transport events and timer ticks through one ordered queue into the link.
actor FakePhoneConnection {
    private let link: PhoneLink?
    private let connection: TCPConnection
    private let clock = SystemClock()
    private var media: FakeMediaServer
    private var timer: Task<Void, Never>?
    private let inputs: AsyncStream<Input>
    private let inputSink: AsyncStream<Input>.Continuation
    /// Every event the phone link reported.
    private(set) var events: [LinkEvent] = []
    /// Every message the phone received on the media channel: (message id, body).
    private(set) var mediaRequests: [(UInt16, [UInt8])] = []
    private(set) var closeReason: LinkCloseReason?

    private enum Input: Sendable {
        case transport(TransportEvent)
        case tick
    }

    init(connection: TCPConnection, configuration: LinkConfiguration, context: TLSContext, media: FakeMediaServer) {
        self.connection = connection
        self.media = media
        self.link = (try? TLSSession(context: context)).map { PhoneLink(configuration: configuration, tls: $0) }
        (inputs, inputSink) = AsyncStream.makeStream(of: Input.self)
    }

    private var now: Duration { clock.now.sinceOrigin }

    func begin() async {
        guard let link else {
            connection.abort()
            return
        }
        let sink = inputSink
        connection.start { sink.yield(.transport($0)) }
        perform(link.tick(now: now))
        for await input in inputs {
            switch input {
            case .transport(.received(let bytes)): perform(link.receive(bytes, now: now))
            case .transport(.closed):
                timer?.cancel()
                return
            case .tick: perform(link.tick(now: now))
            }
        }
    }

    /// The car's description as the phone parsed it.
    var car: CarDescription? { link?.car }

    /// Sends one message as the phone (audio focus on channel 0, media sink messages), like a server would.
    func send(channel: UInt8, messageId: UInt16, body: [UInt8]) throws {
        guard let link else { return }
        perform(try link.send(channel: channel, messageId: messageId, body: body))
    }

    /// Every message the phone received on `channel`, as (message id, body).
    func messages(on channel: UInt8) -> [(UInt16, [UInt8])] {
        events.compactMap { event in
            if case .message(channel, let id, let body) = event { (id, body) } else { nil }
        }
    }

    /// Starts the phone's bye-bye.
    func sayByeBye() {
        guard let link else { return }
        perform(link.sayByeBye(now: now))
    }

    private func perform(_ actions: [LinkAction]) {
        for action in actions {
            switch action {
            case .send(let bytes): connection.write(bytes)
            case .event(let event):
                events.append(event)
                react(to: event)
            case .close(let reason):
                closeReason = reason
                connection.close()
            }
        }
        timer?.cancel()
        guard let next = link?.nextDeadline else { return }
        let sink = inputSink
        // Rounded up to the clock's millisecond, so the `now` read on waking is never before it.
        let deadline = ClockInstant(sinceOrigin: next + .nanoseconds(999_999))
        timer = Task { [clock] in
            guard (try? await clock.sleep(until: deadline)) != nil else { return }
            sink.yield(.tick)
        }
    }

    private func react(to event: LinkEvent) {
        switch event {
        case .channelOpened(let service):
            guard case .vendorExtension(LinkConfiguration.dashportMediaServiceName, _) = service.kind else { return }
            guard media.helloDelay > .zero else { return send(media.greeting(), on: service.channel) }
            let (delay, channel) = (media.helloDelay, service.channel)
            Task { [clock] in
                guard (try? await clock.sleep(for: delay)) != nil else { return }
                self.greet(on: channel)
            }
        case .message(let channel, let messageId, let body):
            guard case .vendorExtension? = link?.car?.service(onChannel: channel)?.kind else { return }
            mediaRequests.append((messageId, body))
            send(media.answer(messageId: messageId, body: body), on: channel)
        default:
            break
        }
    }

    private func greet(on channel: UInt8) {
        send(media.greeting(), on: channel)
    }

    private func send(_ messages: [(UInt16, [UInt8])], on channel: UInt8) {
        guard let link else { return }
        for (messageId, body) in messages {
            do {
                perform(try link.send(channel: channel, messageId: messageId, body: body))
            } catch LinkSendError.notRunning(.closing), LinkSendError.notRunning(.closed) {
                // The car left (or said bye-bye) while this answer was due: a phone sends nothing
                // on a link that has ended. On a loaded machine that happens after the test's end.
                return
            } catch {
                Issue.record("the fake phone could not send \(messageId): \(error)")
            }
        }
    }
}
