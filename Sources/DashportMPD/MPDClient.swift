// Sources/DashportMPD/MPDClient.swift - the MPD client Dashport uses: reconnection, password, back-off, idle events.

public import DashportClock
public import DashportLog
import Synchronization

/// A client of one MPD server that outlives MPD's restarts.
///
/// Two connections, as MPD's own clients do: one for commands (pipelined, opened on demand) and
/// one that sits in `idle` and turns MPD's change notices into ``Event/changed(_:)``. The idle one
/// is also the watchman: while MPD is down it reconnects with exponential back-off, and commands
/// made meanwhile fail at once with the reason (``MPDError/unreachable(_:_:)``, a refused
/// password, …) instead of hanging. A watchdog (running only while commands wait) closes the
/// command connection when its oldest command waits past ``Configuration/commandTimeout`` (an MPD
/// whose pipe output nobody drains stops answering), so a caller gets ``MPDError/timedOut(_:_:)``
/// rather than waiting forever.
public actor MPDClient {
    public struct Configuration: Sendable, Hashable {
        public var address: MPDAddress
        public var password: String?
        public var limits = MPDLimits()
        public var commandTimeout: Duration = .seconds(15)
        public var connectTimeout: Duration = .seconds(5)
        public var initialBackoff: Duration = .milliseconds(100)
        public var maxBackoff: Duration = .seconds(5)
        /// The chunk MPD is asked to send covers in (`binarylimit`, MPD 0.22.4+).
        public var binaryChunk = 256 * 1024
        /// The subsystems the idle connection waits on.
        public var subsystems = ["database", "update", "stored_playlist", "playlist", "player", "mixer", "options"]

        public init(address: MPDAddress, password: String? = nil) {
            self.address = address
            self.password = password
        }
    }

    /// What the client tells its subscribers.
    public enum Event: Sendable, Hashable {
        /// Connected (at start, and again after MPD came back).
        case connected(MPDVersion)
        /// MPD went away or refused the connection; the client keeps trying.
        case disconnected(MPDError)
        /// These subsystems changed (MPD's `changed:` names).
        case changed(Set<String>)
    }

    /// The oldest MPD this client speaks to: `albumart` and `readpicture`, `binarylimit`, `getvol`.
    public static let minimumVersion = MPDVersion(0, 21)

    public let configuration: Configuration
    let clock: any DashportClock
    let logger: Logger
    private var commands: MPDConnection?
    private var opening: Task<Result<MPDConnection, MPDError>, Never>?
    /// Set while MPD is known to be down: commands fail with it at once until the idle loop is back.
    private var down: MPDError?
    private var subscribers: [Int: AsyncStream<Event>.Continuation] = [:]
    private var nextSubscriber = 0
    private var loops: [Task<Void, Never>] = []
    /// Runs while commands are in flight (one task per busy spell, none while MPD is idle).
    private var watchdogTask: Task<Void, Never>?
    private var idleConnection: MPDConnection?
    private var stopped = false
    /// The version of the last connection (nil before the first).
    public private(set) var version: MPDVersion?

    public init(configuration: Configuration, clock: any DashportClock, logger: Logger) {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger.labelled("mpd").with("mpd", configuration.address.description)
    }

    /// Starts the idle connection (and with it reconnection).
    public func start() {
        guard loops.isEmpty, !stopped else { return }
        loops = [Task { await self.idleLoop() }]
    }

    /// Closes both connections and ends every subscription; commands then fail with ``MPDError/stopped``.
    public func stop() {
        stopped = true
        loops.forEach { $0.cancel() }
        loops = []
        watchdogTask?.cancel()
        watchdogTask = nil
        idleConnection?.close()
        commands?.close()
        commands = nil
        for continuation in subscribers.values { continuation.finish() }
        subscribers = [:]
    }

    /// Whether MPD answered the last attempt (false while it is down).
    public var isConnected: Bool { down == nil && version != nil }
    /// Why MPD is not reachable now, nil when it is (or no attempt was made yet).
    public var lastError: MPDError? { down }

    /// Every event from now on.
    public func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(64))
        let key = nextSubscriber
        nextSubscriber += 1
        subscribers[key] = continuation
        continuation.onTermination = { _ in Task { await self.unsubscribe(key) } }
        return stream
    }

    private func unsubscribe(_ key: Int) { subscribers[key] = nil }

    private func emit(_ event: Event) {
        for continuation in subscribers.values { continuation.yield(event) }
    }

    /// Runs one command on the command connection, opening it first if needed. A connection that
    /// turns out dead (MPD restarted since) is replaced once and the command sent again.
    public func run(_ command: MPDCommand) async throws(MPDError) -> MPDResponse {
        try await perform { connection async throws(MPDError) in try await connection.run(command) }
    }

    /// Runs a command list as one request.
    public func run(list: [MPDCommand]) async throws(MPDError) -> MPDResponse {
        try await perform { connection async throws(MPDError) in try await connection.run(list: list) }
    }

    private func perform(
        _ body: (MPDConnection) async throws(MPDError) -> MPDResponse
    ) async throws(MPDError) -> MPDResponse {
        for attempt in 0..<2 {
            let reused = commands != nil
            let connection = try await commandConnection()
            if watchdogTask == nil { watchdogTask = Task { await self.watchdog() } }
            do throws(MPDError) {
                return try await body(connection)
            } catch {
                guard error.isConnectionFault else { throw error }
                if commands === connection { commands = nil }
                if case .timedOut = error { throw error }
                guard reused, attempt == 0 else { throw error }
            }
        }
        throw .disconnected("the command connection was lost twice")
    }

    private func commandConnection() async throws(MPDError) -> MPDConnection {
        if stopped { throw .stopped }
        if let commands, !commands.isClosed { return commands }
        commands = nil
        if let down { throw down }
        let task = opening ?? Task { await self.openAuthenticated() }
        opening = task
        let result = await task.value
        if opening == task { opening = nil }
        let connection = try result.get()
        if stopped {
            connection.close()
            throw .stopped
        }
        if commands == nil { commands = connection } else if commands !== connection { connection.close() }
        return commands ?? connection
    }

    /// A new connection that said hello, is new enough and took the password.
    func openAuthenticated() async -> Result<MPDConnection, MPDError> {
        let address = configuration.address
        let limits = configuration.limits
        let clock = self.clock
        let logger = self.logger
        let attempt = Task { () async -> Result<MPDConnection, MPDError> in
            do throws(MPDError) {
                return .success(try await MPDConnection.open(address, limits: limits, clock: clock, logger: logger))
            } catch {
                return .failure(error)
            }
        }
        let timeout = configuration.connectTimeout
        let expired = ExpiryFlag()
        let timer = Task {
            guard (try? await clock.sleep(for: timeout)) != nil else { return }
            expired.set()
            attempt.cancel()
        }
        let opened = await attempt.value
        timer.cancel()
        if case .failure = opened, expired.isSet {
            return .failure(.unreachable(address, "no MPD greeting within \(timeout)"))
        }
        guard case .success(let connection) = opened else { return opened }
        do throws(MPDError) {
            guard connection.version >= Self.minimumVersion else { throw .tooOld(connection.version, needs: Self.minimumVersion) }
            if let password = configuration.password {
                _ = try await connection.run(MPDCommand("password", password))
            }
            if connection.version >= MPDVersion(0, 22, 4) {
                _ = try await connection.run(MPDCommand("binarylimit", String(configuration.binaryChunk)))
            }
        } catch {
            connection.close()
            return .failure(error)
        }
        return .success(connection)
    }

    private func idleLoop() async {
        var backoff = configuration.initialBackoff
        var told: MPDError?? = .none  // what subscribers were last told: .none nothing yet, .some(nil) connected
        while !stopped && !Task.isCancelled {
            let opened = await openAuthenticated()
            switch opened {
            case .success(let connection):
                idleConnection = connection
                down = nil
                version = connection.version
                backoff = configuration.initialBackoff
                logger.notice("connected to MPD \(connection.version)")
                told = .some(nil)
                emit(.connected(connection.version))
                var lost: MPDError
                while true {
                    do throws(MPDError) {
                        let changed = try await connection.idle(configuration.subsystems)
                        if !changed.isEmpty { emit(.changed(Set(changed))) }
                    } catch {
                        lost = error
                        break
                    }
                }
                connection.close()
                idleConnection = nil
                if stopped { return }
                commands?.close(lost)
                commands = nil
                down = lost
                logger.warning("lost MPD: \(lost); reconnecting")
                told = .some(lost)
                emit(.disconnected(lost))
            case .failure(let error):
                down = error
                if told != .some(error) {
                    logger.error("\(error)")
                    told = .some(error)
                    emit(.disconnected(error))
                }
                guard (try? await clock.sleep(for: backoff)) != nil else { return }
                backoff = min(backoff * 2, configuration.maxBackoff)
            }
        }
    }

    /// Checks every quarter of the timeout while a command waits; ends once none does (the next
    /// command starts it again), so an idle server has no wake of its own for MPD.
    private func watchdog() async {
        let period = configuration.commandTimeout / 4
        defer { watchdogTask = nil }
        while !stopped {
            guard (try? await clock.sleep(for: period)) != nil else { return }
            guard let commands, let waited = commands.oldestWait(now: clock.now) else { return }
            if waited > configuration.commandTimeout {
                logger.error("MPD has not answered for \(waited); closing the command connection")
                commands.close(.timedOut("a command", configuration.commandTimeout))
                self.commands = nil
                return
            }
        }
    }
}

/// Whether a connect attempt's timer fired (so its failure is reported as the time-out it was).
final class ExpiryFlag: Sendable {
    private let fired = Atomic<Bool>(false)
    func set() { fired.store(true, ordering: .relaxed) }
    var isSet: Bool { fired.load(ordering: .relaxed) }
}
