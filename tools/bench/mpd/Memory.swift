import DashportBenchSupport
import DashportMPDSource
import DashportTransport
import Foundation

/// `dashport serve` as a child process (its memory is its own): idle once it answers, then after
/// one car browsed the root, the first page of Albums and Artists and `albums` albums' songs.
struct ServeMemory {
    var idle: MemorySample
    var browsed: MemorySample
}

func serveMemory(
    executable: String, state: String, mpd: String?, albums: [String], albumsTab: String, artistsTab: String, cars: Cars
) async throws -> ServeMemory {
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    let log = state + "/serve.log"
    guard FileManager.default.createFile(atPath: log, contents: nil) else { throw BenchFailure("cannot create \(log)") }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = ["serve", "--listen", "127.0.0.1:0", "--state-dir", state, "--no-audio"] + (mpd.map { ["--mpd", $0] } ?? [])
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle(forWritingAtPath: log)
    try process.run()
    defer {
        process.terminate()
        process.waitUntilExit()
    }
    var address: ListenAddress?
    let deadline = ContinuousClock.now + .seconds(30)
    while address == nil {
        guard process.isRunning, ContinuousClock.now < deadline else { throw BenchFailure("dashport serve did not listen: see \(log)") }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        address =
            text.split(separator: "\n").lazy.filter { $0.contains("listening") }
            .compactMap { $0.split(separator: " ").first { $0.hasPrefix("address=") }?.dropFirst("address=".count) }
            .compactMap { try? ListenAddress.parse(String($0)) }.first
        if address == nil { try await Task.sleep(for: .milliseconds(10)) }
    }
    guard let address else { throw BenchFailure("no address") }
    // Idle: connected to its library (one car's root answered, then gone).
    let first = try await cars.connect(address)
    first.abort()
    try await Task.sleep(for: .seconds(1))
    let idle = try MemorySample.read(pid: process.processIdentifier)
    let car = try await cars.connect(address)
    _ = try await car.children(of: albumsTab)
    _ = try await car.children(of: artistsTab)
    for album in albums { _ = try await car.children(of: album) }
    try await Task.sleep(for: .seconds(1))
    let browsed = try MemorySample.read(pid: process.processIdentifier)
    car.abort()
    return ServeMemory(idle: idle, browsed: browsed)
}
