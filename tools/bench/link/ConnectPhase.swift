import DashportBenchSupport
import DashportServer
import DashportTLS
import DashportTransport
import Foundation

/// Connect to root tabs, next to a bare TLS handshake, interleaved.
struct ConnectReport {
    var warm: [ConnectTimes] = []
    var restarted: [ConnectTimes] = []
    var tlsReference: [Double] = []
    var tcpReference: [Double] = []
    var rootBodyBytes = 0
    var rootTabs = 0
    var referenceSuite = ""
    var cache = CacheRuns()
}

enum ConnectPhase {
    /// Runs the phase and returns the report and the server (still running) for the next phase.
    static func run(_ bench: Bench) async throws -> (ConnectReport, DashportServer) {
        let options = bench.options
        let state = bench.workDirectory + "/state"
        var server = try await bench.startServer(stateDirectory: state, limits: .lifted)
        var report = ConnectReport()

        // Warm the browse cache: the first car ever browses the root and the cache is written.
        let (first, _) = try await bench.connectCar(to: server)
        report.rootBodyBytes = first.root.bodyBytes
        report.rootTabs = first.root.items.count
        first.abort()
        await waitUntilIdle(server)

        // The references use the server's own identity and the cars' client context.
        let identity = try TLSIdentity.loadOrCreate(stateDirectory: state)
        let serverTLS = try TLSContext(.server(identity: identity, peerPolicy: .acceptAny))
        let tlsServer = try TLSEchoServer(context: serverTLS)
        let tcpServer = try RawEchoServer(requestSize: TLSPeer.payload.count, responseSize: TLSPeer.payload.count, reactors: 1)
        defer {
            tlsServer.stop()
            tcpServer.stop()
        }
        func references() async throws {
            let (elapsed, suite) = try await TLSEchoServer.roundTrip(to: tlsServer.address, context: bench.carTLS, loop: bench.carLoop)
            report.tlsReference.append(elapsed)
            report.referenceSuite = suite
            let start = ContinuousClock.now
            let client = try await RawEchoClient.connect(to: tcpServer, responseSize: TLSPeer.payload.count, loop: bench.carLoop)
            let echo = await client.roundTrip()
            client.abort()
            if let failure = echo.failure { throw BenchFailure("TCP reference: \(failure)") }
            report.tcpReference.append(milliseconds(ContinuousClock.now - start))
        }

        progress("connect: \(options.connects) warm connects, interleaved with the references")
        for _ in 0..<options.connects {
            let (car, times) = try await bench.connectCar(to: server)
            report.warm.append(times)
            car.abort()
            await waitUntilIdle(server)
            try await references()
        }

        progress("connect: \(options.restarts) connects, each the first after a server restart")
        for _ in 0..<options.restarts {
            await server.stop(grace: .seconds(1))
            server = try await bench.startServer(stateDirectory: state, limits: .lifted)
            let (car, times) = try await bench.connectCar(to: server)
            report.restarted.append(times)
            car.abort()
            await waitUntilIdle(server)
            try await references()
        }

        // Last, as the slow provider's calls and the core's refresh outlive each run by a few delays.
        progress("connect: the browse core alone, \(options.restarts) times with a fast and with a slow provider")
        let (cacheCopy, catalog) = try CacheRuns.prepare(stateDirectory: state, into: bench.workDirectory + "/cache-copy")
        for _ in 0..<options.restarts {
            await report.cache.run(cache: cacheCopy, catalog: catalog)
        }
        try await Task.sleep(for: CacheRuns.delay * 3)
        return (report, server)
    }

    static func print(_ report: ConnectReport, _ options: Options) {
        let reference = median(report.tlsReference)
        func row(_ name: String, _ samples: [Double]) {
            let value = median(samples)
            Swift.print(
                "| \(name) | \(formatMilliseconds(value)) | \(formatMilliseconds(percentile(samples, 0.9))) | \(formatRatio(value / reference)) |"
            )
        }
        Swift.print(
            "Connect to root tabs on loopback, release build, median of \(options.connects) interleaved runs "
                + "(after a restart: \(options.restarts)); a root BROWSE_RESULT of \(report.rootTabs) tabs, \(report.rootBodyBytes) bytes; "
                + "negotiated: AAP \(report.warm.last?.suite ?? "?"), reference \(report.referenceSuite)\n")
        Swift.print("| what | median | p90 | × TLS reference |")
        Swift.print("|---|---:|---:|---:|")
        row("AAP connect → root tabs, running server (browse cache warm)", report.warm.map(\.root))
        if !report.restarted.isEmpty {
            row("AAP connect → root tabs, first car after a server restart (cache read from disk)", report.restarted.map(\.root))
        }
        if !report.cache.fastFirst.isEmpty {
            row(
                "browse core alone, root from the disk cache, first request after start: demo CatalogProvider (fast)",
                report.cache.fastFirst)
            let slow = "provider answering after \(CacheRuns.delay)"
            row(
                "browse core alone, root from the disk cache, first request after start: \(slow) (waits out the answer budget)",
                report.cache.slowFirst)
            row("browse core alone, root from the disk cache, next request: \(slow) (known slow: cache at once)", report.cache.slowLater)
        }
        row("TLS reference: TCP connect + TLS 1.2 handshake + one 100-byte round trip", report.tlsReference)
        row("TCP connect + one 100-byte round trip (no TLS)", report.tcpReference)
        let warm = report.warm
        Swift.print(
            "\nWhere a warm connect's time goes (median ms from before the TCP connect): TCP connected "
                + [
                    ("", warm.map(\.tcp)), ("version", warm.map(\.version)), ("TLS established", warm.map(\.tls)),
                    ("media channel open", warm.map(\.channel)), ("hello", warm.map(\.hello)), ("root tabs", warm.map(\.root)),
                ]
                .map { "\($0.0.isEmpty ? "" : $0.0 + " ")\(String(format: "%.2f", median($0.1)))" }.joined(separator: ", ") + ".")
    }
}
