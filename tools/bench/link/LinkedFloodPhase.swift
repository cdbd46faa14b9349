import DashportBenchSupport
import DashportServer
import DashportTransport
import Foundation
import Synchronization

/// 5. Hostile linked cars and a connect thrash (issue 23 items 1, 2 and 4): the good cars'
/// GET_CHILDREN load alone, then beside each attacker in turn: a linked car flooding encrypted
/// pings, one flooding GET_CHILDREN, one flooding searches (each waiting for no answer, as fast as
/// the server takes them, reconnecting when closed), and bare TCP connects as fast as four loops
/// can make them. Each run beside an attacker comes right after a run alone, and each attacker's
/// ratios are against its own runs alone, so a change in the machine's load weighs on both sides. Every attacker runs on a reactor thread of its own, whose CPU is counted
/// with the cars', not the server's.
enum LinkedFloodPhase {
    struct Attack {
        var method: Method
        /// The good cars alone, each run right before one of ``method``'s.
        var alone: Method
        /// Connections the attacker made during its measured runs.
        var connections = 0
        /// Of those, how many the server closed.
        var closed = 0
    }

    struct Report {
        var alone: Method
        var attacks: [Attack] = []
    }

    /// What an attacker did, from any thread.
    final class Counts: Sendable {
        let connections = Atomic<Int>(0)
        let closed = Atomic<Int>(0)
    }

    static let thrashName = "bare TCP connect thrash (4 loops)"

    static func run(_ bench: Bench, server: DashportServer) async throws -> Report {
        let options = bench.options
        progress("linked floods: connecting \(options.cars) good cars")
        let cars = try await bench.connectCars(options.cars, to: server.address)
        defer { cars.forEach { $0.abort() } }
        let rootId = cars[0].rootId
        func load(_ name: String) -> Method {
            Method(name: name) { deadline in
                await withTaskGroup(of: LoadResult.self) { group in
                    for car in cars { group.addTask { await car.load(parentId: rootId, depth: options.manyDepth, until: deadline) } }
                    return await group.reduce(into: []) { $0.append($1) }
                }
            }
        }
        let length = Duration.milliseconds(Int64(options.seconds * 1000))
        let loop = try EventLoop(name: "bench-attacker")
        let attackerThread = await withCheckedContinuation { done in loop.execute { done.resume(returning: CPUTime.currentThreadId()) } }
        var report = Report(alone: load("alone"))
        _ = try await report.alone.run(.now + .milliseconds(300))
        let names = BenchCar.Flood.allCases.map { "beside a linked car flooding \($0.rawValue)" } + ["beside a \(thrashName)"]
        for (index, name) in names.enumerated() {
            var attack = Attack(method: load(name), alone: load("alone"))
            for round in 0..<options.rounds {
                // An alone run right before each run beside the attacker: on a shared machine the
                // load moves by 2× within a minute, so each ratio compares runs seconds apart.
                progress("linked floods: round \(round + 1) of \(options.rounds) alone, then \(name)")
                try await ThroughputPhase.measure(&attack.alone, length: length, carThread: bench.carThread)
                let stop = Flag()
                let counts = Counts()
                let attacker: Task<Void, Never>
                if index < BenchCar.Flood.allCases.count {
                    let flood = BenchCar.Flood.allCases[index]
                    attacker = Task(executorPreference: loop) {
                        await Self.flood(flood, bench: bench, address: server.address, loop: loop, stop: stop, counts: counts)
                    }
                    // Measured once the attacker is linked and flooding.
                    let linked = ContinuousClock.now + .seconds(20)
                    while counts.connections.load(ordering: .relaxed) == 0, ContinuousClock.now < linked {
                        try await Task.sleep(for: .milliseconds(10))
                    }
                    try await Task.sleep(for: .milliseconds(300))
                } else {
                    // On the attacker's thread (its child tasks too): its connects and resets are its
                    // CPU, not the server's, as they would be on a machine of its own.
                    attacker = Task(executorPreference: loop) {
                        await withTaskGroup(of: Void.self) { group in
                            for _ in 0..<4 {
                                group.addTask { await Self.thrash(address: server.address, loop: loop, stop: stop, counts: counts) }
                            }
                        }
                    }
                }
                let before = (counts.connections.load(ordering: .relaxed), counts.closed.load(ordering: .relaxed))
                try await ThroughputPhase.measure(
                    &attack.method, length: length, carThread: bench.carThread, clientThreads: [attackerThread])
                attack.connections += max(1, counts.connections.load(ordering: .relaxed) - before.0 + (index < 3 ? 1 : 0))
                attack.closed += counts.closed.load(ordering: .relaxed) - before.1
                stop.set()
                await attacker.value
                await waitUntilIdle(server, atMost: options.cars)
            }
            report.alone.merge(attack.alone)
            report.attacks.append(attack)
        }
        return report
    }

    /// One linked car flooding `flood` from `loop` (its encryption on that thread), reconnecting
    /// whenever the server closes it.
    static func flood(
        _ flood: BenchCar.Flood, bench: Bench, address: ListenAddress, loop: EventLoop, stop: Flag, counts: Counts
    ) async {
        while !stop.isSet {
            guard let car = try? await BenchCar.connect(to: address, configuration: bench.car, tls: bench.carTLS, loop: loop).0 else {
                try? await Task.sleep(for: .milliseconds(50))
                continue
            }
            counts.connections.add(1, ordering: .relaxed)
            let rootId = car.rootId
            while !stop.isSet && !car.isClosed {
                let queued = await withCheckedContinuation { done in
                    loop.execute {
                        if car.connection.outboundBufferedBytes < 256 * 1024 { car.flood(flood, count: 256, parentId: rootId) }
                        done.resume(returning: car.connection.outboundBufferedBytes)
                    }
                }
                if queued >= 256 * 1024 {
                    // Woken when the server has taken some (or closed it), not by polling: a wake a
                    // millisecond was the attacker's CPU, taken from the cars on two cores.
                    await withCheckedContinuation { done in car.connection.whenOutboundAtMost(128 * 1024) { done.resume() } }
                } else {
                    await Task.yield()
                }
            }
            if car.isClosed { counts.closed.add(1, ordering: .relaxed) }
            car.abort()
        }
    }

    /// Connects and resets at once, as fast as one loop can, until `stop`.
    static func thrash(address: ListenAddress, loop: EventLoop, stop: Flag, counts: Counts) async {
        while !stop.isSet {
            guard let connection = try? await TCPClient.connect(to: address, loop: loop) else {
                try? await Task.sleep(for: .milliseconds(1))
                continue
            }
            counts.connections.add(1, ordering: .relaxed)
            connection.abort()
        }
    }

    static func print(_ report: Report, _ options: Options) {
        Swift.print(
            "Hostile linked cars and a connect thrash: \(options.cars) good cars, \(options.manyDepth) GET_CHILDREN of the root in flight each, "
                + "beside each attacker in \(options.rounds) runs of \(options.seconds) s, each right after a run alone; medians; "
                + "each attacker's ratios against its own runs alone; goal (issue 23): within 1.2× of the rate and 3× of the p50 and p99 alone\n"
        )
        Swift.print(
            "| good cars | requests/s | × alone | p50 | × alone | p99 | × alone | goal | server CPU per good request | hostile connections (closed) | server CPU per hostile connection | attacker's own CPU |"
        )
        Swift.print("|---|---:|---:|---:|---:|---:|---:|:---:|---:|---:|---:|---:|")
        let perRequest = { (method: Method) in String(format: "%.1f µs", method.cpu.server * 1e6 / Double(max(method.answered, 1))) }
        func row(_ name: String, _ method: Method, against alone: Method?, _ rest: String) {
            let (r, a, b) = (median(method.rates), percentile(method.latencies, 0.5), percentile(method.latencies, 0.99))
            let (r0, a0, b0) = alone.map { (median($0.rates), percentile($0.latencies, 0.5), percentile($0.latencies, 0.99)) } ?? (r, a, b)
            // Issue 23's goal: within 1.2× of the rate alone, within 3× of the latency alone.
            let goal = alone == nil ? "—" : (r * 1.2 >= r0 && a <= 3 * a0 && b <= 3 * b0 ? "met" : "missed")
            Swift.print(
                "| \(name) | \(formatCount(r)) | \(formatRatio(r / r0)) | \(formatMilliseconds(a)) | \(formatRatio(a / a0)) "
                    + "| \(formatMilliseconds(b)) | \(formatRatio(b / b0)) | \(goal) | \(perRequest(method)) | \(rest) |")
        }
        row("alone (every run alone)", report.alone, against: nil, "— | — | —")
        let window = Double(options.rounds) * options.seconds
        for attack in report.attacks {
            let method = attack.method
            // What the server spent beyond what the good cars' requests cost in the runs alone
            // next to these (the attacker's reactor thread is not counted; its tasks on the
            // shared pool are, so this is an upper bound).
            let alonePerRequest = attack.alone.cpu.server / Double(max(attack.alone.answered, 1))
            let hostile = max(0, method.cpu.server - alonePerRequest * Double(method.answered))
            let perConnection =
                method.name.contains(thrashName)
                ? String(format: "%.0f µs", hostile * 1e6 / Double(attack.connections))
                : String(format: "%.1f%% of a core", 100 * hostile / window)
            // The client side's CPU (the cars' thread and the attacker's) over the cars' own alone.
            let carsPerRequest = attack.alone.cpu.cars / Double(max(attack.alone.answered, 1))
            let attackerCPU = max(0, method.cpu.cars - carsPerRequest * Double(method.answered))
            let own = String(format: "%.0f%% of a core", 100 * attackerCPU / window)
            row("  alone, next to the runs below", attack.alone, against: nil, "— | — | —")
            row(
                method.name, method, against: attack.alone,
                "\(formatCount(Double(attack.connections))) (\(attack.closed)) | \(perConnection) | \(own)")
        }
    }
}

/// Waits (bounded) until only `count` connections are left (the good cars), so one attacker's
/// teardown does not run into the next measurement.
func waitUntilIdle(_ server: DashportServer, atMost count: Int, limit: Duration = .seconds(10)) async {
    let deadline = ContinuousClock.now + limit
    while server.connectionCount > count, ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(5))
    }
}
