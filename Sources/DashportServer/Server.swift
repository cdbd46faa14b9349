public import DashportClock
import DashportFiles
import FoundationEssentials
import Glibc
public import DashportArtwork
public import DashportBrowse
import DashportLink
public import DashportLog
import DashportTLS
import DashportThread
public import DashportTransport
public import DashportSession
public import DashportUSB
import Synchronization

/// A running Dashport server: a TCP listener whose every connection runs a `CarConnection`
/// against one shared ``ServerCore``.
public final class DashportServer: Sendable {
    /// The address actually bound (with the real port when port 0 was asked for).
    public let address: ListenAddress
    /// SHA-256 of the server certificate the cars see.
    public let certificateFingerprint: String
    public let core: ServerCore
    /// Reloads the catalog (nil with a custom provider); see ``reloadCatalog(reason:)``.
    public let catalogReloader: CatalogReloader?
    private let listener: TCPListener
    let context: ServerContext
    private let gadgets = Mutex<[FunctionFSGadget]>([])
    private let watcher: CatalogWatcher?
    private let control: ControlServer?
    private let audioInputServer: AudioInputServer?
    private let audioPlan: AudioPlan?

    /// Binds and starts accepting cars. Throws a clear error when the configuration is refused,
    /// the catalog is invalid, the identity cannot be loaded or the address cannot be bound.
    ///
    /// The catalog is read and validated while the listener already accepts: a car that connects
    /// meanwhile is answered from the disk cache (and pushed children-changed for every cached
    /// parent that the catalog then shows differently). `start` returns once the catalog is in; if
    /// it is refused, the listener is closed again and the error thrown. The catalog file is then
    /// watched (inotify) and reloaded when it changes.
    ///
    /// `handler` is the session's player (default: the demo library's, `DemoPlaybackHandler`). A
    /// handler without a sound of its own is heard through the audio input socket
    /// (``audioInputSocketPath``, fed by `dashport audio-in`).
    ///
    /// `releaseThreadCaches` empties the malloc caches of the caller's own long-lived threads (the
    /// log writer's, say); the server runs it, after the reactor's, before each trim at rest.
    public static func start(
        configuration: ServerConfiguration, logger: Logger,
        provider: (any BrowseProvider)? = nil, artworkFetcher: (any ArtworkFetcher)? = nil,
        clock: any DashportClock = SystemClock(), handler: (any SessionHandler)? = nil,
        releaseThreadCaches: @escaping @Sendable () async -> Void = {}
    ) async throws -> DashportServer {
        try configuration.validate()
        let address: ListenAddress
        do {
            address = try ListenAddress.parse(configuration.listen)
        } catch {
            throw ConfigurationError("--listen \(configuration.listen): \(error)")
        }
        // An RSA key generation on first run: on a thread of its own, not one of the pool's few.
        let stateDirectory = configuration.stateDirectory
        let tlsLogger = logger.labelled("tls")
        let identity = try await OSThread.run(name: "identity") { () throws(TLSError) in
            try TLSIdentity.loadOrCreate(stateDirectory: stateDirectory, logger: tlsLogger)
        }
        let tls = try TLSContext(.server(identity: identity, peerPolicy: try peerPolicy(configuration)))
        let core = try await ServerCore.make(
            configuration: configuration, logger: logger, provider: provider, artworkFetcher: artworkFetcher, clock: clock,
            handler: handler)
        let loading = core.catalog.map { catalog in
            Task.detached { () -> Result<CatalogChange, CatalogError> in
                do throws(CatalogError) {
                    return .success(try await OSThread.run(name: "catalog-load") { () throws(CatalogError) in try catalog.load() })
                } catch {
                    return .failure(error)
                }
            }
        }
        // The cars' media audio sinks are opened only when there is a sound to send them.
        let audioPlan = configuration.audio ? AudioPlan(handlerSource: core.session.audioSource, clock: core.clock) : nil
        let audio = audioPlan?.fanout
        let link = LinkConfiguration(
            labelText: configuration.label,
            deviceName: configuration.deviceName,
            handshakeDeadline: .milliseconds(Int64(configuration.handshakeTimeoutSeconds * 1000)),
            idleDeadline: configuration.idleTimeoutSeconds > 0
                ? .milliseconds(Int64(configuration.idleTimeoutSeconds * 1000)) : nil,
            wantsService: audio != nil
                ? LinkConfiguration.drivesDashportServices : LinkConfiguration.drivesDashportServicesWithoutAudio)
        // Every socket counts against the listener's hard cap; linked cars and connections still in
        // the handshake each have their own share of it (HandshakeAdmission). The listening socket
        // is on reactor 0 (with the control socket and the audio pump); the cars are spread over
        // every reactor (`--reactors`).
        let reactors = EventLoop.reactors(configuration.reactors)
        let listener = try TCPListener.bind(
            address, maxConnections: configuration.maxConnections + configuration.maxPendingConnections,
            keepAlive: configuration.keepAlive, receiveBufferSize: DashportServer.carReceiveBufferSize, logger: logger.labelled("tcp"),
            loop: reactors[0], connectionLoops: reactors)
        let admission = HandshakeAdmission(
            limits: .init(
                maxLinked: configuration.maxConnections, maxPending: configuration.maxPendingConnections,
                maxPendingPerAddress: configuration.maxPendingPerAddress, maxLinkedPerAddress: configuration.maxCarsPerAddress,
                perAddressOnLoopback: configuration.limitPendingPerLoopbackAddress),
            logger: logger.labelled("admission"))
        let context = ServerContext(
            tls: tls, link: link, core: core, logger: logger.labelled("car"),
            registry: ConnectionRegistry(releaseThreadCaches: {
                // Every reactor the cars ran on (reactor 0 is the shared one), then the caller's.
                for reactor in reactors { await reactor.releaseThreadCache() }
                await releaseThreadCaches()
            }),
            admission: admission,
            lanes: reactors.map { ReactorLane(loop: $0, deadlines: DeadlineScheduler(clock: core.clock)) },
            recordDirectory: try SessionFiles.prepare(configuration.recordDirectory),
            reassembly: ReassemblyBudget(limit: configuration.maxUnfinishedMessageBytes),
            writeStallLimit: .milliseconds(Int64(configuration.writeStallTimeoutSeconds * 1000)),
            messageRate: .init(
                perSecond: configuration.maxMessagesPerSecond, burst: 2 * configuration.maxMessagesPerSecond,
                closeAfter: .milliseconds(Int64(configuration.messageFloodCloseSeconds * 1000))),
            audio: audio)
        audioPlan?.start()
        if let mpd = core.mpd, let audioPlan, audioPlan.carsHearInput {
            mpd.followListening(audioPlan.input, logger: logger.labelled("mpd"))
        }
        listener.start { connection in
            // On the reactor thread: a flood of connects is trimmed here, before any task runs.
            let host = connection.peerHost ?? connection.peerDescription
            guard let ticket = admission.admit(host: host, peer: connection.peerDescription, abort: { connection.abort() }) else {
                connection.abort()  // every connection in the handshake is making progress: this one waits its turn
                return
            }
            // The car's worker runs on the reactor that owns its socket (EventLoop+TaskExecutor).
            Task.detached(executorPreference: connection.preferredExecutor) {
                await CarConnection(stream: connection, context: context, ticket: ticket, host: host).run()
                context.registry.connectionEnded()
            }
        }
        func abandon(_ error: ConfigurationError) async -> ConfigurationError {
            listener.shutdown()
            audioPlan?.stop()
            _ = await context.registry.shutdownAll(grace: .seconds(1), clock: core.clock)
            core.stop()
            await core.session.close()
            return error
        }
        var reloader: CatalogReloader?
        var watcher: CatalogWatcher?
        if let catalog = core.catalog, let loading {
            if case .failure(let error) = await loading.value {
                throw await abandon(ConfigurationError("catalog refused: \(error)"))
            }
            let catalogReloader = CatalogReloader(catalog: catalog, browse: core.browse, logger: logger)
            reloader = catalogReloader
            watcher = CatalogWatcher.start(path: catalog.path, logger: logger.labelled("catalog").with("file", catalog.path), clock: clock)
            {
                await catalogReloader.reload(reason: "the file changed")
            }
        }
        let control: ControlServer?
        do {
            control = try ControlServer.open(
                explicit: configuration.controlSocket, stateDirectory: configuration.stateDirectory,
                service: ControlService(
                    registry: context.registry, core: core, reloader: reloader, address: listener.boundAddress,
                    fingerprint: identity.fingerprintSHA256, stateDirectory: configuration.stateDirectory, startedAt: Date(),
                    audioInput: audioPlan?.input),
                logger: logger, clock: clock)
        } catch {
            watcher?.stop()
            throw await abandon(error)
        }
        // After the control socket: a second server on this state directory was refused there.
        let audioInput: AudioInputServer?
        do {
            audioInput = try audioPlan.flatMap { plan throws(ConfigurationError) in
                try AudioInputServer.open(stateDirectory: configuration.stateDirectory, input: plan.input, logger: logger)
            }
        } catch {
            control?.stop()
            watcher?.stop()
            throw await abandon(error)
        }
        let server = DashportServer(
            address: listener.boundAddress, fingerprint: identity.fingerprintSHA256, core: core,
            listener: listener, context: context, reloader: reloader, watcher: watcher, control: control,
            audioInput: audioInput, audioPlan: audioPlan)
        logger.notice(
            "listening",
            [
                "address": "\(listener.boundAddress)", "catalog": core.catalogPath,
                "certificate": identity.fingerprintSHA256,
            ])
        if let usb = configuration.usbGadget {
            do {
                try server.serveUSB(try FunctionFSGadget.make(usb, clock: clock, logger: logger))
            } catch {
                await server.stop(grace: .zero)
                throw ConfigurationError("USB gadget: \(error)")
            }
        }
        return server
    }

    private init(
        address: ListenAddress, fingerprint: String, core: ServerCore, listener: TCPListener, context: ServerContext,
        reloader: CatalogReloader?, watcher: CatalogWatcher?, control: ControlServer?, audioInput: AudioInputServer?,
        audioPlan: AudioPlan?
    ) {
        self.control = control
        self.audioInputServer = audioInput
        self.audioPlan = audioPlan
        self.catalogReloader = reloader
        self.watcher = watcher
        self.address = address
        self.certificateFingerprint = fingerprint
        self.core = core
        self.listener = listener
        self.context = context
    }

    /// Runs one car over a stream made elsewhere (the in-memory end of a `MemoryByteStream` pair
    /// in replays and tests), exactly as an accepted TCP connection runs.
    public func serve(_ stream: any ByteStream) {
        let context = self.context
        Task.detached(executorPreference: stream.preferredExecutor) {
            await CarConnection(stream: stream, context: context).run()
            context.registry.connectionEnded()
        }
    }

    /// The control socket `dashport ctl` talks to (`<state-dir>/control.sock` unless it had to go
    /// elsewhere, see ``ControlSocketLocation``); nil when none could be made (the server serves
    /// without one).
    public var controlSocketPath: String? { control?.path }

    /// The audio input socket `dashport audio-in` writes to (nil: audio is off, or no place could
    /// hold one).
    public var audioInputSocketPath: String? { audioInputServer?.path }

    /// What the audio input socket feeds (nil when audio is off): the cars hear it when the
    /// session's handler makes no sound of its own (or hands out this very input), else it is
    /// drained unheard. A player that feeds it observes its `observeListening`.
    public var audioInput: SessionAudioInput? { audioPlan?.input }

    /// The cars connected now, oldest first.
    public var connectedCars: [ConnectedCar] { context.registry.cars }

    /// `SO_RCVBUF` of every car socket, as the kernel reports it (see ``carReceiveBufferSize``).
    var carSocketReceiveBufferSize: Int? { listener.receiveBufferSize }

    /// How many cars are connected now.
    public var connectionCount: Int { context.registry.count }

    /// How many reactors the cars are spread over (`--reactors`).
    public var reactorCount: Int { context.lanes.count }

    /// TCP connections per reactor now, handshakes included (a test and benchmark seam).
    public var connectionsPerReactor: [Int] { listener.connectionsPerReactor }

    /// Bytes received from cars and not yet taken by their connections (bounded per car by
    /// `CarMailbox`); for tests and benchmarks.
    public var queuedInboundBytes: Int { context.registry.queuedInboundBytes }

    /// One line per connected car with its inbox and transport state: what a test prints when a car
    /// it waited on never got its answer.
    public var connectionDiagnostics: [String] { context.registry.diagnostics }

    /// Bytes all cars together hold in unfinished messages now (bounded by
    /// ``ServerConfiguration/maxUnfinishedMessageBytes``); for tests and benchmarks.
    public var heldMessageBytes: Int { context.reassembly.heldBytes }

    /// How many cars the server has paused reading from right now (inbound back-pressure).
    public var readingPausedCount: Int { context.registry.readingPausedCount }

    /// Bytes queued for all cars together and not yet sent (bounded by the listener's
    /// `OutboundBudget`); for tests and benchmarks.
    public var queuedOutboundBytes: Int { listener.outboundBudget.queuedBytes }

    /// Stops accepting, says BYEBYE to every connected car and waits (up to `grace`) for them to
    /// go; then saves the session.
    public func stop(grace: Duration = .seconds(3)) async {
        watcher?.stop()
        control?.stop()
        listener.shutdown()
        let gadgets = self.gadgets.withLock { $0 }
        gadgets.forEach { $0.beginShutdown() }
        defer { gadgets.forEach { $0.stop() } }
        let cars = context.registry.count
        if cars > 0 { context.logger.notice("saying bye-bye to \(cars) car(s)") }
        let left = await context.registry.shutdownAll(grace: grace, clock: context.core.clock)
        if left > 0 { context.logger.warning("\(left) car(s) did not leave within \(grace)") }
        audioInputServer?.stop()
        audioPlan?.stop()
        core.stop()
        await core.session.close()
        await core.artwork.settled()  // covers answered but not yet in the cache are written
    }

    /// Serves every session of `gadget` (a car on USB) like a TCP connection: the same
    /// `CarConnection` over the gadget's byte stream. Starts the gadget; stopped with the server.
    public func serveUSB(_ gadget: FunctionFSGadget) throws(USBGadgetError) {
        let context = self.context
        try gadget.start { stream in
            Task.detached {
                await CarConnection(stream: stream, context: context).run()
                context.registry.connectionEnded()
            }
        }
        gadgets.withLock { $0.append(gadget) }
    }

    /// Reads the catalog again now (SIGHUP, `dashport ctl reload`): see ``CatalogReloader``.
    /// Nil when the server has no catalog (a custom provider).
    @discardableResult
    public func reloadCatalog(reason: String) async -> CatalogReloader.Outcome? {
        await catalogReloader?.reload(reason: reason)
    }

    /// `SO_RCVBUF` asked for every car socket (Linux doubles it: 128 KiB). A car sends small
    /// requests, so this costs it nothing, and it bounds what the kernel holds of a car the reactor
    /// has paused, and what it must free when a flooder is closed (autotuned, a loopback socket's
    /// buffer grows to megabytes).
    static let carReceiveBufferSize = 64 * 1024

    /// Largest CA file read (a system bundle is about 200 KiB).
    static let maximumCAFileSize = 4 << 20

    /// The head units this server accepts. The CA file is read here and handed to the TLS layer as
    /// bytes (a file that cannot be read, or is not a regular file, is a clear error naming it; a
    /// symbolic link is followed, as in /etc/ssl/certs).
    static func peerPolicy(_ configuration: ServerConfiguration) throws(TLSError) -> PeerPolicy {
        if let ca = configuration.caFile {
            do {
                return .certificateAuthority(pem: try Files.read(ca, limit: maximumCAFileSize, followingLinks: true), source: ca)
            } catch {
                throw .configuration("cannot load CA file \(ca): \(error)")
            }
        }
        let pins = configuration.allowedFingerprints.compactMap(ServerConfiguration.normalizedFingerprint)
        return pins.isEmpty ? .acceptAny : .pinnedSHA256(Set(pins))
    }
}
