public import DashportClock
public import DashportArtwork
public import DashportBrowse
public import DashportLog
public import DashportServer
public import DashportSession
import Foundation
import Synchronization
public import Testing

/// A real server on 127.0.0.1:0 with its own state directory and a log the test can read.
///
/// Prefer ``with(stateDirectory:provider:artworkFetcher:clock:handler:configure:_:)``: it stops the server, awaited,
/// before it returns, whether the body passed or threw, so no server outlives its test.
public struct TestServer: Sendable {
    public let server: DashportServer
    public let log: CollectingSink
    public let stateDirectory: String

    public static func start(
        stateDirectory: String? = nil, provider: (any BrowseProvider)? = nil,
        artworkFetcher: (any ArtworkFetcher)? = nil, clock: any DashportClock = SystemClock(),
        handler: (any SessionHandler)? = nil, configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        let directory: String
        if let stateDirectory {
            directory = stateDirectory
        } else {
            // A fresh directory with this process's one identity: no key generation per server.
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-server-test-\(UUID().uuidString)").path
            try SeededIdentity.seed(directory)
        }
        var configuration = ServerConfiguration()
        configuration.listen = "127.0.0.1:0"
        configuration.stateDirectory = directory
        // See patientHandshakeDeadline: a loaded machine must not fail a test on speed alone.
        configuration.handshakeTimeoutSeconds = Double(patientHandshakeDeadline.components.seconds)
        // The server's default is one reactor per core; DASHPORT_TEST_REACTORS=N runs every test
        // server on N (1: as before there were more), unless the test sets its own.
        if let text = ProcessInfo.processInfo.environment["DASHPORT_TEST_REACTORS"], let reactors = Int(text) {
            configuration.reactors = reactors
        }
        configure(&configuration)
        let sink = CollectingSink()
        let logger = Logger(label: "test", level: .debug, sink: sink)
        let server = try await DashportServer.start(
            configuration: configuration, logger: logger, provider: provider, artworkFetcher: artworkFetcher, clock: clock,
            handler: handler)
        let started = TestServer(server: server, log: sink, stateDirectory: directory)
        TestServer.running.withLock { $0[ObjectIdentifier(server)] = started }
        return started
    }

    /// Servers started here and not yet stopped, for ``diagnostics()``.
    private static let running = Mutex<[ObjectIdentifier: TestServer]>([:])

    /// Every running test server's cars (inbox and transport state) and its last log lines: what a
    /// test prints when a car it waited on never got an answer, to tell a stuck server from a stuck car.
    public static func diagnostics() -> String {
        running.withLock { Array($0.values) }.map { test in
            let logs = test.log.records.suffix(12).map { record in
                "log: \(record.message) " + record.metadata.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
            }
            return "server \(test.server.address):\n  " + (test.server.connectionDiagnostics + logs).joined(separator: "\n  ")
        }.joined(separator: "\n")
    }

    /// Starts a server, runs `body` with it, then stops it (awaited) and removes its state directory.
    public static func with<T>(
        stateDirectory: String? = nil, provider: (any BrowseProvider)? = nil,
        artworkFetcher: (any ArtworkFetcher)? = nil, clock: any DashportClock = SystemClock(),
        handler: (any SessionHandler)? = nil, configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (TestServer) async throws -> T
    ) async throws -> T {
        let server = try await start(
            stateDirectory: stateDirectory, provider: provider, artworkFetcher: artworkFetcher, clock: clock, handler: handler,
            configure: configure)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Stops the server (awaited: every car is said bye-bye to and every connection task ended).
    public func stop(keepingState: Bool = false) async {
        _ = TestServer.running.withLock { $0.removeValue(forKey: ObjectIdentifier(server)) }
        await server.stop(grace: .seconds(2))
        if !keepingState { try? FileManager.default.removeItem(atPath: stateDirectory) }
    }

    /// Waits until the server logged a line containing `fragment`.
    public func waitForLog(_ fragment: String, timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        do {
            try await eventually("a log line containing '\(fragment)'", timeout: timeout, sourceLocation: sourceLocation) {
                log.records.contains { $0.message.contains(fragment) }
            }
        } catch {
            Issue.record("last log lines: \(log.records.suffix(5).map(\.message))", sourceLocation: sourceLocation)
            throw error
        }
    }
}
