import DashportBenchSupport
import DashportClock
import DashportMPD
import Foundation
import Glibc

/// A real mpd over the generated library: its own config, socket, database and a `null` output
/// (`sync "yes"`: it plays in real time, like a car), started as a child process.
final class BenchMPD: Sendable {
    let directory: String
    let process: Process
    var socket: String { directory + "/mpd.sock" }
    var address: MPDAddress { .unix(socket) }

    static func start(directory: String, music: String) async throws -> BenchMPD {
        let config = """
            music_directory "\(music)"
            playlist_directory "\(directory)/playlists"
            db_file "\(directory)/database"
            state_file "\(directory)/state"
            log_file "\(directory)/mpd.log"
            bind_to_address "\(directory)/mpd.sock"
            auto_update "no"
            zeroconf_enabled "no"
            audio_output {
                type "null"
                name "bench null"
                sync "yes"
            }

            """
        try FileManager.default.createDirectory(atPath: directory + "/playlists", withIntermediateDirectories: true)
        try Data(config.utf8).write(to: URL(fileURLWithPath: directory + "/mpd.conf"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mpd")
        process.arguments = ["--no-daemon", directory + "/mpd.conf"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let mpd = BenchMPD(directory: directory, process: process)
        let deadline = ContinuousClock.now + .seconds(60)
        while (try? await mpd.connect())?.close() == nil {
            guard process.isRunning, ContinuousClock.now < deadline else {
                throw BenchFailure("mpd did not answer: see \(directory)/mpd.log")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return mpd
    }

    private init(directory: String, process: Process) {
        self.directory = directory
        self.process = process
    }

    func connect() async throws -> MPDConnection { try await MPDConnection.open(address, clock: SystemClock()) }

    /// `update`, returning once MPD's database holds the library (`updating_db` gone).
    func update() async throws {
        let connection = try await connect()
        defer { connection.close() }
        _ = try await connection.run(MPDCommand("update"))
        while try await connection.run(MPDCommand("status"))["updating_db"] != nil {
            _ = try await connection.idle(["update"])
        }
    }

    /// mpd's user + system CPU seconds so far (/proc/<pid>/stat, clock ticks).
    var cpuSeconds: Double {
        guard let stat = readWhole("/proc/\(process.processIdentifier)/stat"), let close = stat.lastIndex(of: ")") else { return .nan }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
