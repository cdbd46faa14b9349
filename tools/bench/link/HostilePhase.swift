import DashportBenchSupport
import DashportMessages
import DashportServer
import DashportTransport
import Foundation
import Synchronization

/// 4. Hostile peers (issue 10): the many-connection GET_CHILDREN load alone, then beside a peer
/// that floods before it authenticates and a linked car that never reads. While they run, the
/// server's queued and held bytes are sampled: what a hostile peer makes the server hold must stay
/// under the documented bounds (DocC *Architecture*, "Memory a car can make the server hold"), and
/// the good cars' rate and latency should barely move.
enum HostilePhase {
    struct Report {
        var alone: Method
        var beside: Method
        var maxInbound = 0, maxOutbound = 0, maxHeld = 0
        var floodedBytes = 0, flooderClosed = 0
        /// The hostile window's length in seconds (the flooder's connects per second).
        var window = 0.0
        /// Flooder connections closed during the measured runs beside it.
        var flooderClosedMeasured = 0
        /// Seconds from the never-reader's first unread answer to its close; nil if still open.
        var neverReaderClosedAfter: Double?
        var rssBefore = 0, rssMax = 0
    }

    /// VERSION_REQUEST (1.6) in a plaintext control frame, then a FIRST fragment declaring 60,000
    /// bytes (under the 64 KiB an unauthenticated peer may hold): what the flood continues.
    static let floodStart: [UInt8] =
        [0, 0x03, 0, 6, 0x00, 0x01, 0x00, 0x01, 0x00, 0x06]
        + [0, 0x01, 0, 2, 0x00, 0x00, 0xEA, 0x60, 0x00, 0x01]
    /// 16,384 empty MIDDLE frames.
    static let middles = [UInt8](repeating: 0, count: 64 * 1024)

    static func run(_ bench: Bench, server: DashportServer) async throws -> Report {
        let options = bench.options
        progress("hostile: connecting \(options.cars) good cars")
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
        var report = Report(alone: load("alone"), beside: load("beside a flooder and a never-reader"))
        let length = Duration.milliseconds(Int64(options.seconds * 1000))
        _ = try await report.alone.run(.now + .milliseconds(300))
        report.rssBefore = (try? MemorySample.read(pid: getpid()).rss) ?? 0
        for round in 0..<options.rounds {
            progress("hostile: round \(round + 1) of \(options.rounds) alone")
            try await ThroughputPhase.measure(&report.alone, length: length, carThread: bench.carThread)
        }

        let stop = Flag()
        let sampled = Maxima()
        let sampler = Task {
            while !stop.isSet {
                let rss = (try? MemorySample.read(pid: getpid()).rss) ?? 0
                sampled.value.withLock {
                    $0 = (
                        max($0.inbound, server.queuedInboundBytes), max($0.outbound, server.queuedOutboundBytes),
                        max($0.held, server.heldMessageBytes), max($0.rss, rss)
                    )
                }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        // The flooder has a reactor thread of its own, as it would have a machine of its own: its
        // client-side sends must not queue the good cars' I/O behind them on the cars' thread.
        // That thread's CPU is counted with the cars', not the server's.
        let flooderLoop = try EventLoop(name: "bench-flooder")
        let flooderThread = await withCheckedContinuation { done in
            flooderLoop.execute { done.resume(returning: CPUTime.currentThreadId()) }
        }
        let flood = Flooder()
        let windowStarted = ContinuousClock.now
        let flooder = Task(executorPreference: flooderLoop) { await flood.run(address: server.address, loop: flooderLoop, stop: stop) }
        progress("hostile: a flooder and a never-reader join")
        let neverReader = try await bench.connectCar(to: server).0
        defer { neverReader.abort() }
        // Its requests ask for the largest tab, so unread answers pile up fast.
        var largest = (id: rootId, bytes: 0)
        for tab in neverReader.root.items {
            let listing = try await neverReader.children(of: tab.id)
            if listing.bodyBytes > largest.bytes { largest = (tab.id, listing.bodyBytes) }
        }
        let largestId = largest.id
        neverReader.connection.pauseReading()
        let stallStarted = ContinuousClock.now
        let starver = Task {
            // Keeps asking (every answer goes unread) until the server closes it.
            while !neverReader.isClosed && !stop.isSet {
                // Within its own 8 MiB client cap: it must be the server that closes it.
                if neverReader.connection.outboundBufferedBytes < 1 << 20 { neverReader.send(count: 32, parentId: largestId) }
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        // The hostile window lasts past the write-stall limit (15 s), so the never-reader's close is in it.
        let window = ContinuousClock.now + .seconds(options.hostileSeconds)
        var round = 0
        while ContinuousClock.now < window {
            round += 1
            progress("hostile: run \(round) beside them")
            let closes = flood.closes.load(ordering: .relaxed)
            try await ThroughputPhase.measure(&report.beside, length: length, carThread: bench.carThread, clientThreads: [flooderThread])
            report.flooderClosedMeasured += flood.closes.load(ordering: .relaxed) - closes
            if report.neverReaderClosedAfter == nil, neverReader.isClosed {
                report.neverReaderClosedAfter = milliseconds(ContinuousClock.now - stallStarted) / 1000
            }
        }
        stop.set()
        report.window = milliseconds(ContinuousClock.now - windowStarted) / 1000
        await flooder.value
        await starver.value
        await sampler.value
        // The same number of runs alone again once the hostile peers are gone, so a change in the
        // machine's load during the phase weighs on both sides of the ratio alike.
        for round in 0..<options.rounds {
            progress("hostile: round \(round + 1) of \(options.rounds) alone again")
            try await ThroughputPhase.measure(&report.alone, length: length, carThread: bench.carThread)
        }
        let maxima = sampled.value.withLock { $0 }
        (report.maxInbound, report.maxOutbound, report.maxHeld, report.rssMax) = (maxima.inbound, maxima.outbound, maxima.held, maxima.rss)
        report.floodedBytes = flood.sent.load(ordering: .relaxed)
        report.flooderClosed = flood.closes.load(ordering: .relaxed)
        return report
    }

    static func print(_ report: Report, _ options: Options) {
        Swift.print(
            "Hostile peers: \(options.cars) good cars, \(options.manyDepth) GET_CHILDREN of the root in flight each, "
                + "alone (\(options.rounds) runs before and \(options.rounds) after) and beside a peer flooding empty MIDDLE frames before it authenticates "
                + "and a linked car that never reads (\(options.hostileSeconds) s); medians of \(options.seconds)-s runs\n")
        Swift.print(
            "| good cars | requests/s | × alone | p50 | p99 | CPU / request off the cars' and the flooder's threads (beside: incl. the hostile peers' tasks) |"
        )
        Swift.print("|---|---:|---:|---:|---:|---:|")
        let alone = median(report.alone.rates)
        for method in [report.alone, report.beside] {
            let rate = median(method.rates)
            Swift.print(
                "| \(method.name) | \(formatCount(rate)) | \(formatRatio(rate / alone)) "
                    + "| \(formatMilliseconds(percentile(method.latencies, 0.5))) | \(formatMilliseconds(percentile(method.latencies, 0.99))) "
                    + "| " + String(format: "%.1f µs", method.cpu.server * 1e6 / Double(max(method.answered, 1))) + " |")
        }
        // What the beside runs cost the server over what their requests cost alone, per flooder
        // connection (the never-reader's share included, so an upper bound).
        let alonePerRequest = report.alone.cpu.server / Double(max(report.alone.answered, 1))
        let hostileCPU = report.beside.cpu.server - alonePerRequest * Double(report.beside.answered)
        let perFlooderConnection =
            report.flooderClosedMeasured > 0
            ? String(format: "%.0f µs", hostileCPU * 1e6 / Double(report.flooderClosedMeasured)) : "—"
        let closed =
            report.neverReaderClosedAfter.map { String(format: "closed after %.1f s of unread answers", $0) }
            ?? "still open at the end of the window"
        Swift.print(
            """

            What the server held at most during the hostile window (sampled every 50 ms): \
            \(report.maxInbound / 1024) KiB of unread input for all cars (bound: 128 KiB per car), \
            \(report.maxOutbound / 1024) KiB of queued output (bound: 1.25 MiB per car, 32 MiB in all), \
            \(report.maxHeld / 1024) KiB in unfinished messages (bound: 64 KiB per unauthenticated peer, 64 MiB in all). \
            The flooder queued \(report.floodedBytes / 1_048_576) MiB on its connections and was closed \(report.flooderClosed) times \
            (\(formatCount(Double(report.flooderClosed) / max(report.window, 1)))/s: at a frame no setup contains, past 128 KiB or \
            256 frames of setup input, or at the handshake deadline); the server's CPU beside the hostile peers over what \
            the same requests cost alone, per flooder connection: \(perFlooderConnection) (never-reader included). The never-reader was \(closed) (write-stall limit 15 s). \
            This process (server and cars): VmRSS \(report.rssBefore / 1024) MiB before, at most \(report.rssMax / 1024) MiB during.
            """)
    }
}

/// A peer that connects, sends a VERSION_REQUEST and a FIRST fragment, then empty MIDDLE frames
/// as fast as the server takes them, and connects again whenever it is closed.
final class Flooder: Sendable {
    let sent = Atomic<Int>(0)
    let closes = Atomic<Int>(0)

    func run(address: ListenAddress, loop: EventLoop, stop: Flag) async {
        while !stop.isSet {
            guard let connection = try? await TCPClient.connect(to: address, loop: loop) else { return }
            let closed = Flag()
            connection.start { event in if case .closed = event { closed.set() } }
            connection.write(HostilePhase.floodStart)
            while !closed.isSet && !stop.isSet {
                let queued = connection.outboundBufferedBytes
                if queued < 256 * 1024 {
                    connection.write(HostilePhase.middles)
                    // Counted only when the connection took it: writes after the server closed it are dropped.
                    if connection.outboundBufferedBytes > queued { sent.add(HostilePhase.middles.count, ordering: .relaxed) }
                    await Task.yield()
                } else {
                    try? await Task.sleep(for: .milliseconds(1))
                }
            }
            if closed.isSet { closes.add(1, ordering: .relaxed) }
            connection.abort()
        }
    }
}

/// The largest values a sampler has seen.
final class Maxima: Sendable {
    let value = Mutex((inbound: 0, outbound: 0, held: 0, rss: 0))
}
