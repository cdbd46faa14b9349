// Sources/DashportTestSupport/MPDHarness.swift - a real mpd for one test: its own directory, socket, database and library.

public import DashportMPD
import DashportClock
import Foundation
import Glibc
import Synchronization
import Testing

/// Starts `mpd --no-daemon` as an ordinary process with a config in a temporary directory: its own
/// Unix socket (no TCP port), database, state and playlist files, `auto_update "no"`,
/// `zeroconf_enabled "no"`, a `null` output (`sync "yes"`: real-time, like a car), over the
/// generated ``MPDLibrary``. ``start(password:)`` waits for the socket to answer and for the first
/// `update` to finish, through MPD's own state (`updating_db` and `idle update`), never a sleep.
public final class MPDHarness: Sendable {
    public let directory: TemporaryDirectory
    public let password: String?
    private let process = Mutex<Process?>(nil)

    public var socketPath: String { directory.file("mpd.sock") }
    public var address: MPDAddress { .unix(socketPath) }
    public var musicDirectory: String { directory.file("music") }
    public var playlistDirectory: String { directory.file("playlists") }
    public var configPath: String { directory.file("mpd.conf") }
    public var logPath: String { directory.file("mpd.log") }

    private let extraConfig: String

    private init(directory: TemporaryDirectory, password: String?, extraConfig: String) {
        self.directory = directory
        self.password = password
        self.extraConfig = extraConfig
    }

    /// A library, a config and a running mpd whose database holds the library.
    /// `extraConfig` is appended to the config (another `audio_output`, say MPD's pipe output
    /// into `dashport audio-in`).
    public static func start(password: String? = nil, extraConfig: String = "") async throws -> MPDHarness {
        let harness = MPDHarness(directory: try TemporaryDirectory(), password: password, extraConfig: extraConfig)
        try FileManager.default.createDirectory(atPath: harness.musicDirectory, withIntermediateDirectories: true)
        try MPDLibrary.generate(music: harness.musicDirectory, playlists: harness.playlistDirectory)
        try harness.writeConfig()
        try await harness.launch()
        try await harness.update()
        return harness
    }

    private func writeConfig() throws {
        var config = """
            music_directory "\(musicDirectory)"
            playlist_directory "\(playlistDirectory)"
            db_file "\(directory.file("database"))"
            state_file "\(directory.file("state"))"
            sticker_file "\(directory.file("sticker.sql"))"
            log_file "\(logPath)"
            bind_to_address "\(socketPath)"
            auto_update "no"
            zeroconf_enabled "no"
            audio_output {
                type "null"
                name "test null"
                sync "yes"
                mixer_type "software"
            }

            """
        config += extraConfig + "\n"
        if let password {
            config += "password \"\(password)@read,add,control,admin\"\ndefault_permissions \"\"\n"
        }
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// Starts mpd (again, after ``kill()``) and waits until its socket answers.
    public func launch() async throws {
        try? FileManager.default.removeItem(atPath: socketPath)
        let mpd = Process()
        mpd.executableURL = URL(fileURLWithPath: "/usr/bin/mpd")
        mpd.arguments = ["--no-daemon", configPath]
        mpd.standardOutput = FileHandle.nullDevice
        mpd.standardError = FileHandle.nullDevice
        try mpd.run()
        process.withLock { $0 = mpd }
        try await eventually("mpd's socket \(socketPath) answering", timeout: .seconds(60)) {
            guard mpd.isRunning else {
                throw MPDHarnessError("mpd exited with \(mpd.terminationStatus): \(log)")
            }
            guard let connection = try? await MPDConnection.open(address, clock: SystemClock()) else { return false }
            connection.close()
            return true
        }
    }

    /// What mpd logged so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The process id of the running mpd, nil when none runs.
    public var pid: Int32? { process.withLock { $0?.isRunning == true ? $0?.processIdentifier : nil } }

    /// Kills mpd at once (SIGKILL: no goodbye to its clients) and waits until it has exited.
    public func kill() {
        let mpd = process.withLock { process in
            defer { process = nil }
            return process
        }
        guard let mpd, mpd.isRunning else { return }
        Glibc.kill(mpd.processIdentifier, SIGKILL)
        mpd.waitUntilExit()
    }

    /// A connection that has given the password.
    public func connect() async throws -> MPDConnection {
        let connection = try await MPDConnection.open(address, clock: SystemClock())
        if let password { _ = try await connection.run(MPDCommand("password", password)) }
        return connection
    }

    /// Runs `update` and returns once MPD's database holds the result: `updating_db` gone from
    /// `status`, waited for with `idle update` (the idle is entered only while an update runs, and
    /// `status` is asked again after each wake, so the end of a quick update is not missed).
    public func update(_ path: String? = nil) async throws {
        let connection = try await connect()
        defer { connection.close() }
        _ = try await connection.run(MPDCommand("update", arguments: path.map { [$0] } ?? []))
        while try await connection.run(MPDCommand("status"))["updating_db"] != nil {
            _ = try await connection.idle(["update"])
        }
    }

    /// One command over MPD's protocol, as another client would send it (`mpc next` is
    /// `next`): on a connection of its own on the transport's reactor, so no thread of the test
    /// pool waits for MPD's answer (`mpc` as a child process would block one).
    @discardableResult
    public func run(_ name: String, _ arguments: String...) async throws -> MPDResponse {
        let connection = try await connect()
        defer { connection.close() }
        return try await connection.run(MPDCommand(name, arguments: arguments))
    }

    /// The titles of MPD's queue, in order (`playlistinfo`).
    public func queueTitles() async throws -> [String] {
        try await run("playlistinfo").fields.filter { $0.key == "Title" }.map(\.value)
    }

    /// The playing (or paused) song's title (`currentsong`).
    public func currentTitle() async throws -> String? { try await run("currentsong")["Title"] }

    deinit {
        kill()
    }
}
