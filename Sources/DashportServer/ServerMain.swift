internal import CDashportLinux
import Dispatch
import FoundationEssentials
import Glibc
import DashportFiles
import DashportLog
import DashportTLS

/// `dashport serve` and `dashport fingerprint`, as library calls the executable forwards to.
public enum ServerMain {
    /// Starts the server, prints where it listens, serves until SIGINT or SIGTERM, then says
    /// BYEBYE to every car and returns. SIGHUP reloads the catalog.
    public static func run(configuration: ServerConfiguration) async throws {
        limitMallocArenas()
        // Lines are written by the sink's own thread: logging never blocks the reactor.
        let sink = AsyncLogSink()
        defer { sink.flush() }
        // No peer can grow the log by more than its budget (8 KiB/s, 64 KiB burst; repeats counted).
        let logger = Logger(label: "dashport", level: configuration.logLevel, sink: PeerLogBudget(wrapping: sink))
        let signals = TerminationSignals()
        // At rest the log writer's malloc cache is emptied with the reactor's, before each idle trim.
        let server = try await DashportServer.start(
            configuration: configuration, logger: logger, releaseThreadCaches: { await sink.releaseWriterThreadCache() })
        // The one line on standard output: scripts and tests read the port from it.
        let line = Array("dashport: listening on \(server.address)\n".utf8)
        line.withUnsafeBytes { try? Files.writeAll($0, to: 1, path: "standard output") }
        let hangUps = signals.hangUps
        let reloads = Task {
            for await _ in hangUps { await server.reloadCatalog(reason: "SIGHUP") }
        }
        defer { reloads.cancel() }
        let signal = await signals.next()
        logger.notice("received \(signal), stopping")
        await server.stop()
        logger.notice("stopped")
    }

    /// At most two glibc malloc arenas, unless the environment chose (`MALLOC_ARENA_MAX`,
    /// `GLIBC_TUNABLES`). By default glibc gives each thread that meets contention an arena of its
    /// own, up to 8 per core, and keeps each arena's freed pages: an hour's soak grew RssAnon by
    /// 6.5 MiB across the pool threads' arenas, and 500 cars leaving and 500 others connecting
    /// left more behind than with two (README, Performance; issue 10, item 6).
    ///
    /// Blocks of 64 KiB and more get a mapping of their own (mmap), given back when freed, unless
    /// `MALLOC_MMAP_THRESHOLD_` says otherwise. glibc starts at 128 KiB but raises the threshold
    /// to the largest mapped block freed so far (up to 32 MiB): after the first large buffer was
    /// freed, every later one came from the arenas, and what they left between small long-lived
    /// blocks stayed resident (100 cars for 70 s: the idle server kept 1.9 MiB more than before
    /// with the threshold fixed, 3.0 without).
    ///
    /// `dashport` calls it first thing in its main, before any thread is started; `run` calls it too.
    public static func limitMallocArenas() {
        guard getenv("GLIBC_TUNABLES") == nil else { return }
        if getenv("MALLOC_ARENA_MAX") == nil { _ = cdashport_set_malloc_arena_max(2) }
        if getenv("MALLOC_MMAP_THRESHOLD_") == nil { _ = mallopt(M_MMAP_THRESHOLD, 64 * 1024) }
    }

    /// The SHA-256 fingerprint of the server certificate in `stateDirectory`. Nothing is created:
    /// without an identity there it fails, so a mistyped directory never yields a wrong pin.
    public static func fingerprint(stateDirectory: String) throws -> String {
        try TLSIdentity.loadExisting(stateDirectory: stateDirectory).fingerprintSHA256
    }
}

/// SIGINT and SIGTERM as an async wait, and SIGHUP as a stream. The default actions are ignored
/// while this exists so the process stops through the orderly path (and a SIGHUP does not kill it).
final class TerminationSignals {
    private let stream: AsyncStream<String>
    /// One element per SIGHUP (bursts coalesce into one).
    let hangUps: AsyncStream<Void>
    private let sources: [any DispatchSourceSignal]

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        self.stream = stream
        let (hangUps, hangUp) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.hangUps = hangUps
        var sources: [any DispatchSourceSignal] = []
        signal(SIGHUP, SIG_IGN)
        let hangUpSource = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        hangUpSource.setEventHandler { hangUp.yield() }
        hangUpSource.resume()
        sources.append(hangUpSource)
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(name) }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    func next() async -> String {
        for await name in stream { return name }
        return "end of signals"
    }
}
