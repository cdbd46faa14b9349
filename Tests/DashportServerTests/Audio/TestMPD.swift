import DashportHeadUnit
import DashportTestSupport
import Foundation
import Testing

/// A real `mpd` (Debian's, from tools/setup) started for one test: its own config, socket,
/// database, state and log in a temporary directory, `auto_update "no"`, `zeroconf_enabled "no"`,
/// and one pipe output whose command is `dashport audio-in --state-dir STATE` (the example in
/// tools/mpd/). Spoken to through its line protocol on its Unix socket, one command at a time.
final class TestMPD: Sendable {
    let directory: TemporaryDirectory
    let process: Process
    var socketPath: String { directory.file("socket") }
    var musicDirectory: String { directory.file("music") }

    /// Whether `mpd` is installed (tools/setup installs it).
    static var installed: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/mpd") }

    /// The config: the pipe output runs `audioIn` (the built `dashport audio-in` and its options).
    static func configuration(directory: TemporaryDirectory, audioIn: String) -> String {
        """
        music_directory    "\(directory.file("music"))"
        db_file            "\(directory.file("database"))"
        state_file         "\(directory.file("state"))"
        pid_file           "\(directory.file("pid"))"
        log_file           "\(directory.file("log"))"
        bind_to_address    "\(directory.file("socket"))"
        auto_update        "no"
        zeroconf_enabled   "no"
        audio_output {
            type    "pipe"
            name    "Dashport"
            command "\(audioIn)"
            format  "48000:16:2"
        }

        """
    }

    /// Writes `files` (name → bytes) into the music directory, starts mpd and waits for its socket
    /// to answer (an event: its greeting), then updates the database and waits for it to finish.
    static func start(audioIn: String, files: [String: [UInt8]]) async throws -> TestMPD {
        try await start(files: files) { configuration(directory: $0, audioIn: audioIn) }
    }

    /// The same with the config `configure` writes for the directory.
    static func start(files: [String: [UInt8]] = [:], configure: (TemporaryDirectory) -> String) async throws -> TestMPD {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("music"), withIntermediateDirectories: true)
        for (name, bytes) in files { directory.write("music/" + name, bytes) }
        let conf = directory.file("mpd.conf")
        try Data(configure(directory).utf8).write(to: URL(fileURLWithPath: conf))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mpd")
        process.arguments = ["--no-daemon", "--stderr", conf]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let mpd = TestMPD(directory: directory, process: process)
        do {
            try await eventually("mpd's socket answers") { await onAThread { (try? MPDLine.connect(mpd.socketPath)) != nil } }
            try await mpd.updateDatabase()
        } catch {
            await mpd.stop()
            throw error
        }
        return mpd
    }

    private init(directory: TemporaryDirectory, process: Process) {
        self.directory = directory
        self.process = process
    }

    /// Sends `commands` on one connection, in order; the answer lines of the last (an ACK throws).
    func send(_ commands: [String]) async throws -> [String] {
        let path = socketPath
        return try await onAThread { () -> Result<[String], MPDLine.Failure> in
            Result { () throws(MPDLine.Failure) -> [String] in
                let connection = try MPDLine.connect(path)
                defer { close(connection.fd) }
                var last: [String] = []
                for command in commands { last = try connection.command(command) }
                return last
            }
        }.get()
    }

    /// Runs `update` and returns when it has finished: `status` and `idle update` asked on ONE
    /// connection, on a thread of the test's own. `idle` reports what changed since that
    /// connection's last command, so an update that ends between the `status` and the `idle` is
    /// still reported; on a second connection it would not be, and the idle would wait for good
    /// (the suite once hung 767 s on it). A read that waits past `MPDLine.readTimeout` fails.
    func updateDatabase() async throws {
        let path = socketPath
        try await onAThread { () -> Result<Void, MPDLine.Failure> in
            Result { () throws(MPDLine.Failure) in
                let connection = try MPDLine.connect(path)
                defer { close(connection.fd) }
                _ = try connection.command("update")
                while try connection.command("status").contains(where: { $0.hasPrefix("updating_db:") }) {
                    _ = try connection.command("idle update")
                }
            }
        }.get()
    }

    /// One field of `status` (`elapsed`, `state`…).
    func status(_ field: String) async throws -> String? {
        try await send(["status"]).first { $0.hasPrefix(field + ": ") }.map { String($0.dropFirst(field.count + 2)) }
    }

    /// What mpd logged (for a failing test's message).
    var log: String { (try? String(contentsOfFile: directory.file("log"), encoding: .utf8)) ?? "" }

    func stop() async {
        process.terminate()
        let process = self.process
        await onAThread { process.waitUntilExit() }
        directory.remove()
    }
}

/// A blocking MPD protocol connection (on a test's own thread): a greeting, then a command line
/// answered by lines up to `OK` or `ACK …`.
struct MPDLine {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let fd: Int32

    /// How long one read may wait: generous, so only a lost answer reaches it, at load 30 too.
    static let readTimeout: Duration = .seconds(60)

    static func connect(_ path: String) throws(Failure) -> MPDLine {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw Failure(description: "cannot connect to mpd at \(path)")
        }
        // A read never waits for good: an answer (or an idle's event) missing for this long fails.
        var timeout = timeval(tv_sec: Int(readTimeout.components.seconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connection = MPDLine(fd: fd)
        guard let greeting = connection.readLine(), greeting.hasPrefix("OK MPD") else {
            close(fd)
            throw Failure(description: "mpd did not greet")
        }
        return connection
    }

    func command(_ line: String) throws(Failure) -> [String] {
        let bytes = Array((line + "\n").utf8)
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw Failure(description: "cannot send \(line)")
        }
        var lines: [String] = []
        while let answer = readLine() {
            if answer == "OK" { return lines }
            if answer.hasPrefix("ACK") { throw Failure(description: "\(line): \(answer)") }
            lines.append(answer)
        }
        throw Failure(description: "mpd closed the connection during \(line)")
    }

    func readLine() -> String? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while recv(fd, &byte, 1, 0) == 1 {
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return nil
    }
}

/// A canonical WAV file of a sine at `hz`, 48 kHz stereo 16-bit, `seconds` long.
func toneWAV(hz: Double, seconds: Int) -> [UInt8] {
    let frames = seconds * 48_000
    return WAVHeader.bytes(dataBytes: frames * 4) + sinePCM(hz: hz, frames: frames, first: 0)
}
