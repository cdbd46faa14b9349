import DashportTransport
import Foundation
import DashportLog
import DashportBenchSupport

struct MemoryReport {
    var reference: MemorySample
    var idle: MemorySample
    var loaded: MemorySample
    var after: MemorySample
    var again: MemorySample
    var laterWaves: [MemorySample]
    var largestFiles: [(name: String, kib: Int)]
    /// RssAnon by kind of mapping, idle and after the last wave connected.
    var idleAnonymous: [(kind: String, mappings: Int, kib: Int)]
    var loadedAnonymous: [(kind: String, mappings: Int, kib: Int)]
    var cars: Int
    var connectSeconds: Double
}

/// `dashport serve` as a child process: idle, with many cars, after they left; next to a
/// reference child that only has the Swift runtime, Foundation and one listening reactor.
enum MemoryPhase {
    static let targetKiB = 20 * 1024
    static let settle: Duration = .seconds(1)

    static func run(_ bench: Bench, executable: String, referenceExecutable: String) async throws -> MemoryReport {
        let directory = bench.workDirectory + "/memory"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)

        progress("memory: reference process (runtime, Foundation, one reactor)")
        let readyFile = directory + "/reference-ready"
        let referenceProcess = try launch(referenceExecutable, ["--idle-reference", readyFile], log: directory + "/reference.log")
        defer { stop(referenceProcess) }
        _ = try await waitFor(file: readyFile) { _ in true }
        try await Task.sleep(for: settle)
        let reference = try MemorySample.read(pid: referenceProcess.processIdentifier)
        stop(referenceProcess)

        progress("memory: \(executable) serve, idle")
        let log = directory + "/serve.log"
        let server = try launch(
            executable,
            [
                "serve", "--listen", "127.0.0.1:0", "--state-dir", directory + "/state",
                "--max-connections", "\(bench.options.memoryCars + 16)",
                // Every car is 127.0.0.1; this phase measures memory, not the per-address cap.
                "--max-cars-per-address", "\(bench.options.memoryCars + 16)",
            ] + (bench.options.reactors.map { ["--reactors", "\($0)"] } ?? []), log: log)
        defer { stop(server) }
        let address = try await waitFor(file: log) { text in
            text.split(separator: "\n").lazy.filter { $0.contains("listening") }
                .compactMap { $0.split(separator: " ").first { $0.hasPrefix("address=") }?.dropFirst("address=".count) }
                .compactMap { try? ListenAddress.parse(String($0)) }.first
        }
        try await Task.sleep(for: settle)
        let idle = try MemorySample.read(pid: server.processIdentifier)
        let largestFiles = MemorySample.largestFiles(pid: server.processIdentifier, count: 8)
        let idleAnonymous = MemorySample.anonymousByKind(pid: server.processIdentifier)

        progress("memory: connecting \(bench.options.memoryCars) cars")
        let start = ContinuousClock.now
        let cars = try await bench.connectCars(bench.options.memoryCars, to: address)
        let connectSeconds = milliseconds(ContinuousClock.now - start) / 1000
        try await Task.sleep(for: settle)
        let loaded = try MemorySample.read(pid: server.processIdentifier)
        cars.forEach { $0.abort() }
        try await Task.sleep(for: settle * 2)
        let after = try MemorySample.read(pid: server.processIdentifier)

        // A second wave tells memory kept for reuse (the allocator's) from memory leaked per car.
        progress("memory: \(bench.options.memoryCars) cars again")
        let again = try await bench.connectCars(bench.options.memoryCars, to: address)
        try await Task.sleep(for: settle)
        let secondWave = try MemorySample.read(pid: server.processIdentifier)
        var loadedAnonymous = MemorySample.anonymousByKind(pid: server.processIdentifier)
        again.forEach { $0.abort() }
        // Further waves tell a plateau (the allocator's pages, reused) from growth per car.
        var laterWaves: [MemorySample] = []
        for wave in stride(from: 3, through: bench.options.memoryWaves, by: 1) {
            try await Task.sleep(for: settle * 2)
            progress("memory: wave \(wave) of \(bench.options.memoryCars) cars")
            let cars = try await bench.connectCars(bench.options.memoryCars, to: address)
            try await Task.sleep(for: settle)
            laterWaves.append(try MemorySample.read(pid: server.processIdentifier))
            loadedAnonymous = MemorySample.anonymousByKind(pid: server.processIdentifier)
            cars.forEach { $0.abort() }
        }
        return MemoryReport(
            reference: reference, idle: idle, loaded: loaded, after: after, again: secondWave, laterWaves: laterWaves,
            largestFiles: largestFiles, idleAnonymous: idleAnonymous, loadedAnonymous: loadedAnonymous,
            cars: cars.count, connectSeconds: connectSeconds)
    }

    /// The profiling driver (`--hold ADDRESS`): connects the memory phase's cars to a server
    /// started elsewhere, e.g. under heaptrack or massif, and holds them until `file` exists (or
    /// for 60 s), so a heap profile can be taken with exactly that many cars linked.
    static func hold(_ bench: Bench, address: String, until file: String?) async throws {
        let target = try ListenAddress.parse(address)
        progress("hold: connecting \(bench.options.memoryCars) cars to \(target)")
        let cars = try await bench.connectCars(bench.options.memoryCars, to: target)
        progress("hold: \(cars.count) cars linked; " + (file.map { "waiting for \($0)" } ?? "holding for 60 s"))
        let deadline = ContinuousClock.now + .seconds(file == nil ? 60 : 3600)
        while ContinuousClock.now < deadline {
            if let file, FileManager.default.fileExists(atPath: file) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        cars.forEach { $0.abort() }
        progress("hold: cars left")
    }

    static func launch(_ executable: String, _ arguments: [String], log: String) throws -> Process {
        guard FileManager.default.createFile(atPath: log, contents: nil) else { throw BenchFailure("cannot create \(log)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
        return process
    }

    /// SIGTERM, then SIGKILL if it is still there after 5 s.
    static func stop(_ process: Process) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Polls `file` until `parse` finds what it wants in it, for at most 20 s.
    static func waitFor<T>(file: String, _ parse: (String) -> T?) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOfFile: file, encoding: .utf8), !text.isEmpty, let found = parse(text) { return found }
            try await Task.sleep(for: .milliseconds(10))
        }
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        throw BenchFailure("nothing usable in \(file) within 20 s: \(text.suffix(500))")
    }

    /// The reference child: a listening reactor and nothing else, until the parent stops it
    /// (at most two minutes).
    static func idleReference(readyFile: String) -> Never {
        do {
            let listener = try TCPListener.bind(ListenAddress.parse("127.0.0.1:0"), logger: .silent)
            listener.start { $0.abort() }
            guard FileManager.default.createFile(atPath: readyFile, contents: Data("\(listener.boundAddress)\n".utf8)) else { exit(1) }
            sleep(120)
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("idle reference: \(error)\n".utf8))
            exit(1)
        }
    }

    static func print(_ report: MemoryReport) {
        func row(_ name: String, _ sample: MemorySample) {
            Swift.print(
                "| \(name) | \(formatMiB(kilobytes: sample.rss)) | \(formatMiB(kilobytes: sample.peak)) "
                    + "| \(formatMiB(kilobytes: sample.anonymous)) | \(formatMiB(kilobytes: sample.file)) "
                    + "| \(formatRatio(Double(sample.rss) / Double(targetKiB))) |")
        }
        Swift.print(
            "Resident memory of a `dashport serve` child process (release build, /proc/<pid>/status), "
                + "\(settle) after each step; design target: idle under 20 MB\n")
        Swift.print("| what | VmRSS | VmHWM (peak) | RssAnon (private) | RssFile (mapped files) | VmRSS × 20 MiB target |")
        Swift.print("|---|---:|---:|---:|---:|---:|")
        row("reference: Swift runtime + Foundation + one listening reactor, no Dashport core", report.reference)
        row("`dashport serve`, idle after start", report.idle)
        row("`dashport serve`, \(report.cars) Dashport cars connected (each browsed its root)", report.loaded)
        row("`dashport serve`, \(settle * 2) after the \(report.cars) cars left", report.after)
        row("`dashport serve`, \(report.cars) other cars connected (a second wave)", report.again)
        for (index, sample) in report.laterWaves.enumerated() {
            row("`dashport serve`, wave \(index + 3) of \(report.cars) cars connected", sample)
        }
        let perCar = Double(report.loaded.anonymous - report.idle.anonymous) / Double(max(report.cars, 1))
        Swift.print(
            String(
                format:
                    "\nPer connected car (RssAnon): %.0f KiB. The %d cars connected (TCP, TLS, AAP setup, root tabs) in %.2f s, 16 at a time.",
                perCar, report.cars, report.connectSeconds))
        Swift.print(
            "Largest mapped files of the idle server (resident): "
                + report.largestFiles.map { "\($0.name) \(formatMiB(kilobytes: $0.kib))" }.joined(separator: ", ") + ".")
        func kinds(_ list: [(kind: String, mappings: Int, kib: Int)]) -> String {
            list.map { "\($0.kind) \(formatMiB(kilobytes: $0.kib)) (\($0.mappings))" }.joined(separator: ", ")
        }
        Swift.print(
            "Private memory by kind of mapping (count of mappings), idle: \(kinds(report.idleAnonymous)); "
                + "with the last wave connected: \(kinds(report.loadedAnonymous)).")
    }
}
