import Dispatch
import Foundation
import DashportLog
import DashportTLS

/// `dashport serve` and `dashport fingerprint`, as library calls the executable forwards to.
public enum ServerMain {
    /// Starts the server, prints where it listens, serves until SIGINT or SIGTERM, then says
    /// BYEBYE to every car and returns.
    public static func run(configuration: ServerConfiguration) async throws {
        // Lines are written by the sink's own thread: logging never blocks the reactor.
        let sink = AsyncLogSink()
        defer { sink.flush() }
        let logger = Logger(label: "dashport", level: configuration.logLevel, sink: sink)
        let signals = TerminationSignals()
        let server = try await DashportServer.start(configuration: configuration, logger: logger)
        // The one line on standard output: scripts and tests read the port from it.
        FileHandle.standardOutput.write(Data("dashport: listening on \(server.address)\n".utf8))
        let signal = await signals.next()
        logger.notice("received \(signal), stopping")
        await server.stop()
        logger.notice("stopped")
    }

    /// The SHA-256 fingerprint of the server certificate in `stateDirectory` (created if missing).
    public static func fingerprint(stateDirectory: String) throws -> String {
        try TLSIdentity.loadOrCreate(stateDirectory: stateDirectory).fingerprintSHA256
    }
}

/// SIGINT and SIGTERM as an async wait. The default actions are ignored while this exists so the
/// process stops through the orderly path.
final class TerminationSignals {
    private let stream: AsyncStream<String>
    private let sources: [any DispatchSourceSignal]

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        self.stream = stream
        var sources: [any DispatchSourceSignal] = []
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
