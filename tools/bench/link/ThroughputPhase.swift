import DashportBenchSupport
import DashportServer
import DashportTLS
import Foundation
import DashportMessages

/// One way of answering requests, measured in rounds: requests/s per round, every latency.
struct Method {
    var name: String
    var rates: [Double] = []
    var latencies: [Double] = []
    var answered = 0
    /// Per connection, across rounds: requests/s (many-connection methods only).
    var connectionRates: [Double] = []
    var connectionP99s: [Double] = []
    /// Per run: how far the slowest connection's rate is under the fastest's (0…1). Unlike the
    /// spread over ``connectionRates``, which pools every run, a run's load change between runs
    /// does not count here.
    var runSpreads: [Double] = []
    /// CPU seconds of the recorded runs, cars' side and server's side.
    var cpu = CPUSplit()
    let run: (ContinuousClock.Instant) async throws -> [LoadResult]

    /// Takes in `other`'s runs (the same workload measured elsewhere in the phase).
    mutating func merge(_ other: Method) {
        rates += other.rates
        latencies += other.latencies
        answered += other.answered
        connectionRates += other.connectionRates
        connectionP99s += other.connectionP99s
        runSpreads += other.runSpreads
        cpu.cars += other.cpu.cars
        cpu.server += other.cpu.server
    }

    mutating func record(_ results: [LoadResult]) throws {
        if let failure = results.lazy.compactMap(\.failure).first { throw BenchFailure("\(name): \(failure)") }
        let seconds = results.map(\.seconds).max() ?? 0
        answered += results.map(\.answered).reduce(0, +)
        rates.append(seconds > 0 ? Double(results.map(\.answered).reduce(0, +)) / seconds : 0)
        latencies += results.flatMap(\.latencies)
        if results.count > 1 {
            connectionRates += results.map(\.rate)
            connectionP99s += results.map { percentile($0.latencies, 0.99) }
            let rates = results.map(\.rate)
            if let lowest = rates.min(), let highest = rates.max(), highest > 0 { runSpreads.append(1 - lowest / highest) }
        }
    }
}

/// A Dashport workload and its raw-TCP twin, compared as a pair.
struct Pair {
    var title: String
    var aap: Method
    var echo: Method
}

enum ThroughputPhase {
    static func run(_ bench: Bench, server: DashportServer) async throws -> [Pair] {
        let options = bench.options
        let single = try await bench.connectCar(to: server).0
        let root = single.root
        // The largest tab is the list workload (more items, covers to register).
        var largest = (id: "", title: "", listing: Listing(items: [], bodyBytes: 0))
        for tab in root.items {
            let listing = try await single.children(of: tab.id)
            if listing.bodyBytes > largest.listing.bodyBytes { largest = (tab.id, tab.title, listing) }
        }
        progress("throughput: connecting \(options.cars) cars")
        let many = try await bench.connectCars(options.cars, to: server.address)
        progress("throughput: the server's connections per reactor: \(server.connectionsPerReactor)")
        let rootId = single.rootId
        defer { ([single] + many).forEach { $0.abort() } }

        var pairs: [Pair] = []
        var servers: [RawEchoServer] = []
        defer { servers.forEach { $0.stop() } }
        func echo(_ parentId: String, _ listing: Listing, connections: Int, depth: Int) async throws -> Method {
            let server = try RawEchoServer(
                requestSize: wireBytes(request: parentId), responseSize: wireBytes(body: listing.bodyBytes), reactors: options.reactorCount)
            servers.append(server)
            var clients: [RawEchoClient] = []
            for _ in 0..<connections {
                clients.append(
                    try await RawEchoClient.connect(to: server, responseSize: wireBytes(body: listing.bodyBytes), loop: bench.carLoop))
            }
            let name = "raw TCP request/response, \(server.requestSize) B → \(wireBytes(body: listing.bodyBytes)) B"
            return Method(name: name) { deadline in
                await withTaskGroup(of: LoadResult.self) { group in
                    for client in clients { group.addTask { await client.load(depth: depth, until: deadline) } }
                    return await group.reduce(into: []) { $0.append($1) }
                }
            }
        }
        func aap(_ name: String, _ cars: [BenchCar], _ parentId: String, depth: Int) -> Method {
            Method(name: name) { deadline in
                await withTaskGroup(of: LoadResult.self) { group in
                    for car in cars { group.addTask { await car.load(parentId: parentId, depth: depth, until: deadline) } }
                    return await group.reduce(into: []) { $0.append($1) }
                }
            }
        }
        pairs.append(
            Pair(
                title: "1 connection, \(options.depth) in flight, root tabs (\(root.items.count) items)",
                aap: aap("Dashport", [single], rootId, depth: options.depth),
                echo: try await echo(rootId, root, connections: 1, depth: options.depth)))
        pairs.append(
            Pair(
                title: "1 connection, \(options.depth) in flight, largest tab, '\(largest.title)' (\(largest.listing.items.count) items)",
                aap: aap("Dashport", [single], largest.id, depth: options.depth),
                echo: try await echo(largest.id, largest.listing, connections: 1, depth: options.depth)))
        pairs.append(
            Pair(
                title: "\(options.cars) connections, \(options.manyDepth) in flight each, root tabs",
                aap: aap("Dashport", many, rootId, depth: options.manyDepth),
                echo: try await echo(rootId, root, connections: options.cars, depth: options.manyDepth)))

        // A short unrecorded run of each first (caches, allocator, branch predictors).
        for pair in pairs {
            _ = try await pair.aap.run(.now + .milliseconds(300))
            _ = try await pair.echo.run(.now + .milliseconds(300))
        }
        let length = Duration.milliseconds(Int64(options.seconds * 1000))
        for round in 0..<options.rounds {
            progress("throughput: round \(round + 1) of \(options.rounds) (\(pairs.count * 2) runs of \(options.seconds) s)")
            for index in pairs.indices {
                // Alternate which goes first, so a busy moment on a shared machine hits both alike.
                for aapFirst in round % 2 == 0 ? [true, false] : [false, true] {
                    try await measure(&pairs[index], aap: aapFirst, length: length, carThread: bench.carThread)
                }
            }
        }
        return pairs
    }

    /// Runs one side of `pair` once and records its results and the CPU it took.
    static func measure(_ pair: inout Pair, aap: Bool, length: Duration, carThread: Int32) async throws {
        var method = aap ? pair.aap : pair.echo
        try await measure(&method, length: length, carThread: carThread)
        if aap { pair.aap = method } else { pair.echo = method }
    }

    /// Runs `method` once for `length` and records its results and the CPU it took.
    static func measure(_ method: inout Method, length: Duration, carThread: Int32, clientThreads: [Int32] = []) async throws {
        let run = method.run
        let results = try await method.cpu.measure(carThread: carThread, clientThreads: clientThreads) { try await run(.now + length) }
        try method.record(results)
    }

    /// A GET_CHILDREN on the wire: 4-byte frame header, TLS record overhead, message id, body.
    static func wireBytes(request parentId: String) -> Int {
        wireBytes(body: BenchCar.request(id: 100_000, parentId: parentId).serializedBytes().count)
    }

    /// One encrypted single-frame message: header 4 + record overhead 29 + message id 2 + body.
    static func wireBytes(body: Int) -> Int {
        4 + TLSSession.recordOverhead + 2 + body
    }

    static func print(_ pairs: [Pair], _ options: Options) {
        Swift.print(
            "GET_CHILDREN on the Dashport media channel vs raw TCP request/response of the same wire sizes, "
                + "release build, median requests/s of \(options.rounds) interleaved \(options.seconds)-s runs; latency percentiles over every request; "
                + "server and raw TCP reference on \(options.reactorCount) reactor(s), the cars on one thread of their own\n"
        )
        Swift.print("| workload | what | requests/s | × raw TCP | p50 | p99 | server CPU / request | car CPU / request |")
        Swift.print("|---|---|---:|---:|---:|---:|---:|---:|")
        for pair in pairs {
            let reference = median(pair.echo.rates)
            for method in [pair.aap, pair.echo] {
                let rate = median(method.rates)
                let perRequest = { (seconds: Double) in String(format: "%.1f µs", seconds * 1e6 / Double(max(method.answered, 1))) }
                Swift.print(
                    "| \(pair.title) | \(method.name) | \(formatCount(rate)) | \(formatRatio(rate / reference)) "
                        + "| \(formatMilliseconds(percentile(method.latencies, 0.5))) | \(formatMilliseconds(percentile(method.latencies, 0.99))) "
                        + "| \(perRequest(method.cpu.server)) | \(perRequest(method.cpu.cars)) |")
            }
        }
        // The raw TCP reference's spread too: part of it is the loopback pipeline's (one reactor
        // each side, connections served in the order their bytes came), not Dashport's.
        for pair in pairs where !pair.aap.connectionRates.isEmpty {
            for (label, method) in [("Dashport", pair.aap), ("raw TCP", pair.echo)] where !method.connectionRates.isEmpty {
                let rates = method.connectionRates
                let p99s = method.connectionP99s
                Swift.print(
                    "\nFairness, \(pair.title), \(label): per-connection requests/s from \(formatCount(rates.min() ?? .nan)) "
                        + "to \(formatCount(rates.max() ?? .nan)) (median \(formatCount(median(rates))), lowest "
                        + "\(String(format: "%.0f", 100 * (1 - (rates.min() ?? .nan) / (rates.max() ?? .nan))))% under the highest); "
                        + "per-connection p99 latency median \(formatMilliseconds(median(p99s))), worst \(formatMilliseconds(p99s.max() ?? .nan)). "
                        + "Within one run, the lowest under the highest: median "
                        + "\(String(format: "%.0f", 100 * median(method.runSpreads)))%, best \(String(format: "%.0f", 100 * (method.runSpreads.min() ?? .nan)))%, "
                        + "worst \(String(format: "%.0f", 100 * (method.runSpreads.max() ?? .nan)))% over \(method.runSpreads.count) runs."
                )
            }
        }
    }
}
