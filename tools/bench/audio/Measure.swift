import DashportBenchSupport
import DashportClock
import DashportServer
import DashportSession
import DashportTransport
import Foundation

/// Everything one run measured (``AudioBench/measure()``); ``AudioReport/print()`` writes it out.
struct AudioReport: Sendable {
    var cars = 0
    var browsers = 0
    var window = 1
    var ackless = false
    /// The streaming window alone, and the browsing phase beside it.
    var alone = StreamWindow()
    var beside: StreamWindow?
    var browseAnswers = 0
    var browseSeconds = 0.0
    /// Server CPU seconds per second of audio per car, streaming; and the reference's per connection.
    var serverCPU = 0.0
    var carsCPU = 0.0
    var referenceCPU = 0.0
    /// The kernel's part of each (system time).
    var serverSystemCPU = 0.0
    var referenceSystemCPU = 0.0
    var referencePackets = 0
    var referenceSeconds = 0.0
    var referencePacketBytes = 0
    /// Milliseconds from PLAY to the first DATA at a car, and PAUSE to STOP, one per car per sample.
    var playToData: [Double] = []
    var pauseToStop: [Double] = []
    /// Resident KiB of the process: idle server, cars connected, cars streaming (sampled).
    var idleKiB = 0
    var connectedKiB = 0
    var streamingKiB: [(seconds: Double, kib: Int)] = []
    /// Packets the server skipped for cars (their windows stayed shut), from `dashport ctl cars`'s figures.
    var serverDropped = 0
    var violations: [String] = []
    /// The 1-minute load average at each RSS sample (the machine is shared).
    var loads: [Double] = []
    /// The server alone, as a child process; nil when skipped.
    var child: ServerProcessMemory?
    var childSkipped: String?

    var perCarCPUPerAudioSecond: Double { alone.audioSeconds > 0 ? serverCPU / alone.audioSeconds / Double(max(cars, 1)) : .nan }
    var referencePerConnectionSecond: Double {
        referenceSeconds > 0 ? referenceCPU / referenceSeconds / Double(max(cars, 1)) : .nan
    }
}

/// The cars' figures over one window, all cars merged.
struct StreamWindow: Sendable {
    var seconds = 0.0
    var lateness = LatenessHistogram()
    var readLateness = LatenessHistogram()
    var packets = 0
    var bytes = 0
    var missing = 0
    var underflows = 0
    var carsWithUnderflow = 0
    var fewestPackets = 0
    var mostPackets = 0
    /// Seconds the server's reactor thread was runnable but waiting for a CPU in the window.
    var reactorWait = Double.nan

    /// Seconds of audio the window was (its length; every car hears the same stream).
    var audioSeconds: Double { seconds }

    init() {}

    init(_ windows: [AudioWindow], seconds: Double) {
        self.seconds = seconds
        for window in windows {
            lateness.merge(window.lateness)
            readLateness.merge(window.readLateness)
            packets += window.packets
            bytes += window.bytes
            missing += window.missing
            underflows += window.underflows
            if window.underflows > 0 { carsWithUnderflow += 1 }
        }
        fewestPackets = windows.map(\.packets).min() ?? 0
        mostPackets = windows.map(\.packets).max() ?? 0
    }
}

extension AudioBench {
    /// The whole run: streaming window (CPU, underflows, pacing, memory), pacing beside browsing
    /// cars, PLAY/PAUSE latencies, then the write-only reference with the cars gone.
    func measure() async throws -> AudioReport {
        var report = AudioReport(cars: options.cars, browsers: options.browsers, window: options.window, ackless: options.ackless)
        // The server's clock: its `now` is the time since this instant, which the DATA timestamps count from.
        let origin = ContinuousClock.now
        let clock = SystemClock()
        let server = try await startServer(clock: clock)
        let session = server.core.session
        let reactor = await withCheckedContinuation { done in EventLoop.shared.execute { done.resume(returning: CPUTime.currentThreadId()) }
        }
        try await Task.sleep(for: .milliseconds(500))
        report.idleKiB = residentKiB()

        progress("connecting \(options.cars) streaming cars")
        let cars = try await connectAudioCars(options.cars, to: server.address, origin: origin)
        try await Task.sleep(for: .milliseconds(500))
        report.connectedKiB = residentKiB()
        _ = await session.perform(.setRepeatMode(.all), from: .local)  // the long run never runs out of album

        progress("PLAY, then \(String(format: "%.0f", options.seconds)) s of streaming")
        report.playToData += try await latency(cars, "PLAY → first DATA", \.firstData, \.lastFirstData) {
            _ = await session.perform(.playFromMediaId("nd-1", parentId: "album-night-drive"), from: .local)
        }
        cars.forEach { $0.beginWindow() }
        var cpu = CPUSplit()
        let began = ContinuousClock.now
        let waitedBefore = CPUTime.waiting(reactor)
        try await cpu.measure(carThread: carThreads[0], clientThreads: Array(carThreads.dropFirst())) {
            for sample in 1...options.memorySamples {
                try await Task.sleep(until: began + .seconds(options.seconds * Double(sample) / Double(options.memorySamples)))
                report.streamingKiB.append((milliseconds(ContinuousClock.now - began) / 1000, residentKiB()))
                report.loads.append(Double(Machine.load()) ?? .nan)
            }
        }
        report.alone = StreamWindow(cars.map(\.window), seconds: milliseconds(ContinuousClock.now - began) / 1000)
        report.alone.reactorWait = CPUTime.waiting(reactor) - waitedBefore
        report.serverCPU = cpu.server
        report.serverSystemCPU = cpu.serverSystem
        report.carsCPU = cpu.cars
        report.serverDropped = server.connectedCars.compactMap(\.audio).map(\.dropped).reduce(0, +)

        if options.browsers > 0 {
            progress("\(options.browsers) browsing cars beside the stream")
            let browsers = try await connectBrowsingCars(options.browsers, to: server.address)
            let root = browsers[0].rootId
            cars.forEach { $0.beginWindow() }
            let start = ContinuousClock.now
            let deadline = start + .seconds(options.browseSeconds)
            let waited = CPUTime.waiting(reactor)
            let results = await withTaskGroup(of: LoadResult.self) { group in
                for car in browsers { group.addTask { await car.load(parentId: root, depth: 1, until: deadline) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            report.beside = StreamWindow(cars.map(\.window), seconds: milliseconds(ContinuousClock.now - start) / 1000)
            report.beside?.reactorWait = CPUTime.waiting(reactor) - waited
            if let failure = results.lazy.compactMap(\.failure).first { throw BenchFailure("a browsing car: \(failure)") }
            report.browseAnswers = results.map(\.answered).reduce(0, +)
            report.browseSeconds = results.map(\.seconds).max() ?? 0
            browsers.forEach { $0.abort() }
        }

        progress("\(options.samples) × PAUSE → STOP and PLAY → first DATA")
        for _ in 0..<options.samples {
            report.pauseToStop += try await latency(cars, "PAUSE → STOP", \.stops, \.lastStop) {
                _ = await session.perform(.pause, from: .local)
            }
            try await Task.sleep(for: .milliseconds(300))
            report.playToData += try await latency(cars, "PLAY → first DATA", \.firstData, \.lastFirstData) {
                _ = await session.perform(.play, from: .local)
            }
            try await Task.sleep(for: .milliseconds(700))
        }
        _ = await session.perform(.pause, from: .local)
        report.violations = cars.compactMap(\.failure)
        cars.forEach { $0.abort() }
        await server.stop(grace: .seconds(1))

        // The reference writes a DATA frame's bytes as the cars received them (frame header, TLS
        // record, message id, timestamp, PCM): the window's bytes per packet.
        report.referencePacketBytes =
            report.alone.packets > 0 ? report.alone.bytes / report.alone.packets : SessionAudioFormat.bytesPerPacket + 43
        progress("reference: \(options.cars) plain TCP connections, \(String(format: "%.0f", options.referenceSeconds)) s")
        let reference = try await ReferenceStream.open(
            connections: options.cars, packetBytes: report.referencePacketBytes, carLoop: carLoop)
        var referenceCPU = CPUSplit()
        let referenceStart = ContinuousClock.now
        report.referencePackets = await referenceCPU.measure(carThread: carThreads[0], clientThreads: Array(carThreads.dropFirst())) {
            await reference.run(for: .seconds(options.referenceSeconds))
        }
        report.referenceSeconds = milliseconds(ContinuousClock.now - referenceStart) / 1000
        report.referenceCPU = referenceCPU.server
        report.referenceSystemCPU = referenceCPU.serverSystem
        reference.close()

        if options.skipChild {
            report.childSkipped = "--skip-child"
        } else if let executable = dashportExecutable, FileManager.default.isExecutableFile(atPath: executable) {
            progress("the server alone: \(executable) serve, \(options.cars) cars")
            report.child = try await ServerProcessMemory.measure(self, executable: executable, seconds: options.childSeconds)
        } else {
            report.childSkipped = "no dashport executable next to this one; build it: swift build -c release --product dashport"
        }
        return report
    }

    /// `--dashport`, or `dashport` next to this executable.
    var dashportExecutable: String? {
        if let path = options.dashport { return path }
        guard let own = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        return URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent("dashport").path
    }

    /// Runs `command`, then waits until every car's `count` went up; returns, per car, the
    /// milliseconds from just before the command to the car's `instant` (when that arrived).
    private func latency(
        _ cars: [AudioCar], _ what: String, _ count: KeyPath<AudioEvents, Int>, _ instant: KeyPath<AudioEvents, ContinuousClock.Instant?>,
        _ command: () async -> Void
    ) async throws -> [Double] {
        let before = cars.map { $0.events[keyPath: count] }
        let start = ContinuousClock.now
        await command()
        try await waitFor("\(what) at every car") {
            zip(cars, before).allSatisfy { car, was in car.events[keyPath: count] > was || car.failure != nil }
        }
        if let failure = cars.lazy.compactMap(\.failure).first { throw BenchFailure("a car: \(failure)") }
        return cars.compactMap { $0.events[keyPath: instant].map { milliseconds($0 - start) } }
    }
}
