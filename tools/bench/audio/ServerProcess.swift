import DashportBenchSupport
import DashportTransport
import Foundation

/// The server's own memory, without the cars': `dashport serve` as a child process (the release
/// build next to this benchmark, or `--dashport`) and the same cars connected from here, VmRSS and
/// RssAnon of the child from /proc/<pid>/status. One car first plays for a while (`dashport ctl
/// session play-id nd-1`), so what the first PLAY brings once per process (libvips and its
/// libraries, loaded when the first cover is scaled; the tone player) is in the baseline; then,
/// paused, the other cars connect; then PLAY again and every car streams. Per car is the change
/// divided by the cars added.
struct ServerProcessMemory: Sendable {
    var cars = 0
    var idle = MemorySample(rss: 0, peak: 0, anonymous: 0, file: 0)
    /// One car, after it streamed, paused.
    var warm = MemorySample(rss: 0, peak: 0, anonymous: 0, file: 0)
    /// Every car connected, paused.
    var connected = MemorySample(rss: 0, peak: 0, anonymous: 0, file: 0)
    var streaming: [(seconds: Double, sample: MemorySample)] = []

    static let settle: Duration = .seconds(1)

    static func measure(_ bench: AudioBench, executable: String, seconds: Double) async throws -> ServerProcessMemory {
        let directory = bench.directory + "/child"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let log = directory + "/serve.log"
        guard FileManager.default.createFile(atPath: log, contents: nil) else { throw BenchFailure("cannot create \(log)") }
        let server = Process()
        server.executableURL = URL(fileURLWithPath: executable)
        server.arguments = [
            "serve", "--listen", "127.0.0.1:0", "--state-dir", directory + "/state",
            "--max-connections", "\(bench.options.cars + 16)",
        ]
        server.standardInput = FileHandle.nullDevice
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle(forWritingAtPath: log)
        try server.run()
        defer { stop(server) }
        let address = try await listeningAddress(in: log)
        let pid = server.processIdentifier
        func ctl(_ words: String...) throws {
            let ctl = Process()
            ctl.executableURL = URL(fileURLWithPath: executable)
            ctl.arguments = ["ctl", "--state-dir", directory + "/state", "session"] + words
            ctl.standardOutput = FileHandle.nullDevice
            ctl.standardError = FileHandle.nullDevice
            try ctl.run()
            ctl.waitUntilExit()
            guard ctl.terminationStatus == 0 else {
                throw BenchFailure("dashport ctl session \(words.joined(separator: " ")) exited with \(ctl.terminationStatus)")
            }
        }
        var report = ServerProcessMemory(cars: bench.options.cars)
        try await Task.sleep(for: settle)
        report.idle = try MemorySample.read(pid: pid)

        // The child's clock origin is unknown here: lateness is not measured in this phase.
        var cars = try await bench.connectAudioCars(1, to: address, origin: .now)
        defer { cars.forEach { $0.abort() } }
        try ctl("play-id", "nd-1")
        try await streams(cars, after: [0])
        try await Task.sleep(for: .seconds(2))
        try ctl("pause")
        try await waitFor("STOP at the first car") { cars[0].events.stops > 0 }
        try await Task.sleep(for: settle)
        report.warm = try MemorySample.read(pid: pid)

        progress("child server: connecting \(bench.options.cars - 1) more cars")
        cars += try await bench.connectAudioCars(bench.options.cars - 1, to: address, origin: .now)
        try await Task.sleep(for: settle)
        report.connected = try MemorySample.read(pid: pid)

        let before = cars.map(\.events.firstData)
        try ctl("play")
        try await streams(cars, after: before)
        let began = ContinuousClock.now
        for sample in 1...4 {
            try await Task.sleep(until: began + .seconds(seconds * Double(sample) / 4))
            report.streaming.append((milliseconds(ContinuousClock.now - began) / 1000, try MemorySample.read(pid: pid)))
        }
        return report
    }

    /// Waits until every car began a new stream (its count of first DATAs passed `before`).
    private static func streams(_ cars: [AudioCar], after before: [Int]) async throws {
        try await waitFor("the child's stream at every car") {
            zip(cars, before).allSatisfy { $0.events.firstData > $1 || $0.failure != nil }
        }
        if let failure = cars.lazy.compactMap(\.failure).first { throw BenchFailure("a car of the child server: \(failure)") }
    }

    /// The address from the child's "listening" log line (`address=...`), within 20 s.
    private static func listeningAddress(in log: String) async throws -> ListenAddress {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let found = text.split(separator: "\n").lazy.filter { $0.contains("listening") }
                .compactMap { $0.split(separator: " ").first { $0.hasPrefix("address=") }?.dropFirst("address=".count) }
                .compactMap { try? ListenAddress.parse(String($0)) }.first
            if let found { return found }
            try await Task.sleep(for: .milliseconds(10))
        }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        throw BenchFailure("the child server did not say where it listens within 20 s: \(text.suffix(500))")
    }

    /// SIGTERM, then SIGKILL if it is still there after 5 s.
    private static func stop(_ process: Process) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    func print() {
        guard let last = streaming.last?.sample, let first = streaming.first else { return }
        let added = max(cars - 1, 1)
        func perCar(_ from: MemorySample, _ to: MemorySample) -> String {
            String(format: "%.0f KiB", Double(to.anonymous - from.anonymous) / Double(added))
        }
        func both(_ sample: MemorySample) -> String {
            "\(formatMiB(kilobytes: sample.rss)) / \(formatMiB(kilobytes: sample.anonymous))"
        }
        Swift.print(
            "\nThe server alone (`dashport serve` as a child process, release build; VmRSS / RssAnon from /proc/<pid>/status): "
                + "idle \(both(idle)); one car after it streamed 2 s, paused \(both(warm)) (by then libvips, which the first cover "
                + "scaled loads, is mapped: once per process); \(cars) cars connected, paused \(both(connected)); all streaming \(both(last)). "
                + "Private memory (RssAnon) per added car: \(perCar(warm, connected)) connected, \(perCar(connected, last)) more "
                + "streaming (\(perCar(warm, last)) in all). RssAnon while streaming: "
                + streaming.map { String(format: "%.0f s %.1f MiB", $0.seconds, Double($0.sample.anonymous) / 1024) }.joined(
                    separator: ", ")
                + String(format: " (%+d KiB from the first sample).", last.anonymous - first.sample.anonymous))
    }
}
