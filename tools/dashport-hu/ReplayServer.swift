import Foundation
import DashportTransport

/// `dashport-hu replay --serve`: a `dashport serve` of its own on a fresh temporary state
/// directory (no session, cold cache) on a free loopback port, as `tools/record-sessions` runs the
/// server a recording is made on; stopped and removed when the replay is done.
final class ReplayServer {
    let process: Process
    let stateDirectory: String
    let address: ListenAddress

    /// The `dashport` next to this `dashport-hu` (one build's products), else the one on PATH.
    static func defaultExecutable() -> String {
        let own = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let sibling = own.appendingPathComponent("dashport").path
        if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin"
        for directory in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(directory)/dashport") {
            return "\(directory)/dashport"
        }
        return sibling
    }

    /// Starts `executable serve` and waits for its one line on standard output, which names the
    /// port. Throws a sentence a person can act on.
    init(executable: String) throws(ReplayCommandError) {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ReplayCommandError(
                "--serve: no dashport executable at \(executable) (build it: swift build --product dashport; or --dashport PATH)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-replay-\(UUID().uuidString)").path
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ReplayCommandError(
                "--serve: cannot make a state directory in \(FileManager.default.temporaryDirectory.path): \(error.localizedDescription)")
        }
        stateDirectory = directory
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["serve", "--listen", "127.0.0.1:0", "--state-dir", directory, "--log-level", "warning"]
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw ReplayCommandError("--serve: cannot start \(executable): \(error.localizedDescription)")
        }
        // "dashport: listening on 127.0.0.1:PORT", or end of file if the server could not start.
        var line: [UInt8] = []
        while let byte = try? output.fileHandleForReading.read(upToCount: 1)?.first, byte != 0x0A { line.append(byte) }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: "listening on "), let parsed = try? ListenAddress.parse(String(text[range.upperBound...])) else {
            process.terminate()
            process.waitUntilExit()
            try? FileManager.default.removeItem(atPath: directory)
            throw ReplayCommandError("--serve: \(executable) serve did not start (its messages are above)")
        }
        address = parsed
    }

    /// Stops the server (SIGTERM: it says bye-bye and exits) and removes its state directory.
    func stop() {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: stateDirectory)
    }
}

/// A problem `dashport-hu replay` states in one line (no usage text: the command line was fine).
struct ReplayCommandError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
