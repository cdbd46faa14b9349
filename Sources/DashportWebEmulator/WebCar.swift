public import DashportEmulator
import DashportHTTP
public import DashportHeadUnit
import DashportLink
public import DashportLog
import DashportMessages

/// The car behind the page: one link at a time through the connector, reconnected when it drops
/// or when the page switches the profile; every push turned into an event for the page's streams.
public actor WebCar {
    let connector: WebCarConnector
    /// The car before its profile (services, audio, version); each link adds the current profile.
    let configuration: HeadUnitConfiguration
    let timeout: Duration
    let logger: Logger
    public nonisolated let audio = WebAudioFan()
    public nonisolated let recorder = WebRecorderSlot()
    public private(set) var settings: WebCarSettings
    var session: MediaChannelSession?
    var generation = 0
    var connection = WebConnectionInfo()
    var hello: DashportMedia.ServerHello?
    var tabs: WebJSON?
    /// The session's state as of the last push taken in.
    var sessionState: MediaChannelClient?
    var subscribers: [ObjectIdentifier: HTTPStream] = [:]
    var stopped = false
    var reconnectTask: Task<Void, Never>?
    /// A subscriber with more than this queued is closed (the page's EventSource reconnects and
    /// gets a fresh snapshot).
    static let subscriberLimit = 1 << 20

    public init(
        connector: @escaping @Sendable (WebConnectRequest) async throws -> HeadUnitClient,
        configuration: HeadUnitConfiguration = WebCar.defaultConfiguration,
        settings: WebCarSettings = WebCarSettings(), timeout: Duration = .seconds(10), logger: Logger
    ) {
        self.connector = connector
        self.configuration = configuration
        self.settings = settings
        self.timeout = timeout
        self.logger = logger.labelled("web-car")
    }

    /// Connects (and keeps reconnecting after a drop, from 1 s up to 10 s apart) until ``stop()``.
    public func start() {
        scheduleConnect(after: .zero)
    }

    /// Says bye-bye to the phone and stops reconnecting.
    public func stop() async {
        stopped = true
        reconnectTask?.cancel()
        connection.state = .stopped
        broadcast("connection", connection.json)
        if let session {
            await session.client.byeBye()
            if await session.client.closed(within: .seconds(3)) == nil { await session.client.close() }
        }
        for stream in subscribers.values { stream.close() }
        subscribers = [:]
    }

    /// The session while the link is up and the phone said hello.
    public var linkedSession: MediaChannelSession? { hello == nil ? nil : session }

    /// Applies new settings; a profile change ends the link and connects again with the new profile.
    public func apply(_ new: WebCarSettings) async {
        let reconnect = settings.needsReconnect(to: new)
        settings = new
        broadcast("settings", settings.json)
        if reconnect { await reconnectNow(reason: "the car profile changed") }
    }

    /// Ends the current link (bye-bye) and connects a new one at once.
    public func reconnectNow(reason: String) async {
        guard !stopped else { return }
        generation += 1
        let old = session
        session = nil
        hello = nil
        tabs = nil
        connection = WebConnectionInfo(state: .reconnecting, reason: reason)
        broadcast("connection", connection.json)
        if let old {
            await old.client.byeBye()
            if await old.client.closed(within: .seconds(3)) == nil { await old.client.close() }
        }
        scheduleConnect(after: .zero)
    }

    private func scheduleConnect(after delay: Duration) {
        guard !stopped else { return }
        reconnectTask?.cancel()
        let generation = self.generation
        reconnectTask = Task { [weak self] in
            if delay > .zero { try? await Task.sleep(for: delay) }
            guard !Task.isCancelled else { return }
            await self?.connect(generation: generation)
        }
    }

    private func connect(generation: Int) async {
        guard !stopped, generation == self.generation else { return }
        connection.attempt += 1
        connection.state = connection.attempt == 1 && connection.reason == nil ? .connecting : .reconnecting
        broadcast("connection", connection.json)
        let configuration = self.configuration.withDashportProfile(settings.profileOptions.profile)
        let request = WebConnectRequest(configuration: configuration, audioOutput: audio.take, tap: recorder.take)
        let started: MediaChannelSession
        do {
            let client = try await connector(request)
            started = try MediaChannelSession.start(client: client, timeout: timeout)
        } catch {
            guard generation == self.generation else { return }
            logger.notice("cannot connect to the phone: \(error)")
            connection.reason = "\(error)"
            retry()
            return
        }
        guard generation == self.generation, !stopped else {
            await started.client.close()
            return
        }
        session = started
        connection.peer = started.client.peerDescription
        broadcast("connection", connection.json)
        logger.info("connected to the phone", ["peer": started.client.peerDescription])
        Task { [weak self] in
            for await notice in started.notices { await self?.take(notice, generation: generation) }
        }
    }

    private func retry() {
        connection.state = .reconnecting
        broadcast("connection", connection.json)
        // 1 s after a link that was up or a first failure, then 2, 4, 8, 10 s.
        let seconds = min(10, 1 << max(0, min(connection.attempt - 1, 4)))
        scheduleConnect(after: .seconds(seconds))
    }

    /// One notice of the session of `generation` (older sessions' notices are dropped).
    func take(_ notice: MediaSessionNotice, generation: Int) async {
        guard generation == self.generation else { return }
        switch notice {
        case .link(.versionNegotiated(let version)):
            connection.version = "\(version)"
            broadcast("connection", connection.json)
        case .link(.tlsEstablished(let tls)):
            connection.tls = "\(tls.version) \(tls.cipher)"
            broadcast("connection", connection.json)
        case .link(.discoveryRequested(_, let deviceName)):
            connection.phoneName = deviceName
            broadcast("connection", connection.json)
        case .link(.audio(.violation(let text))):
            broadcast("problem", .object(["text": .string("audio: \(text)")]))
        case .link:
            break
        case .update(let update):
            await take(update)
        case .keyBindingRequested, .aapPlaybackStatus, .aapPlaybackMetadata:
            break
        case .problem(let text):
            broadcast("problem", .object(["text": .string(text)]))
        case .closed(let reason):
            logger.notice("the link to the phone ended: \(reason)")
            session = nil
            hello = nil
            tabs = nil
            self.generation += 1
            connection = WebConnectionInfo(state: .reconnecting, reason: "\(reason)")
            retry()
        }
    }
}

extension WebCar {
    /// The car the web emulator starts from, before the profile: the stock services plus the
    /// volume keys (as `browse` lists them).
    public static var defaultConfiguration: HeadUnitConfiguration {
        var configuration = HeadUnitConfiguration()
        configuration.car.services = configuration.car.services.map { service in
            guard case .input(let keycodes) = service.kind else { return service }
            return CarService(channel: service.channel, kind: .input(keycodes: keycodes + [24, 25, 164]))
        }
        return configuration
    }
}
