import DashportCommandLine
import DashportEmulator
import DashportLog
import DashportRecording
import DashportTransport
import Foundation

/// `dashport-hu replay FILE HOST:PORT` (or `FILE --serve`): plays the car side of a recording,
/// compares the server.
enum ReplayCommand {
    static let usage = """
        usage: dashport-hu replay FILE HOST:PORT [--timeout S] [--log-level L]
               dashport-hu replay FILE --serve [--dashport PATH] [--timeout S] [--log-level L]

        Plays the car side of a session recording (made with "dashport-hu record" or
        "dashport serve --record-dir") against a server and compares every server message
        with the recorded one, ignoring the fields the recording declares volatile. Prints each
        difference with the recording's line, the message and the field.

        A recording starts from a fresh server: one whose state directory holds no session yet.
        --serve starts such a server (dashport serve on a new temporary state directory and a free
        loopback port), replays against it and stops it. Against a server that has played since it
        started, the replay stops at the first difference in session state and says so.

        Exits 0 when every server message matched, 1 when any differed, was missing or was
        unexpected, 2 on a usage error or an unreadable recording.

        options:
          --serve          start a fresh dashport serve for the replay instead of giving HOST:PORT
          --dashport PATH  the dashport executable --serve runs (default: next to dashport-hu, else PATH)
          --timeout S      seconds to wait for any one server message (default 30)
          --log-level L    trace, debug, info, notice, warning (default), error; to stderr
        """

    static let spec = CommandSpec(
        name: "dashport-hu replay", synopsis: "FILE HOST:PORT [options]  |  FILE --serve [options]",
        summary: "Plays the car side of a session recording against a server and compares every server message.",
        positionals: ["FILE", "HOST:PORT"],
        options: [
            .flag("serve", "start a fresh dashport serve (temporary state directory, free loopback port) and replay against it"),
            .value("dashport", "PATH", "the dashport executable --serve runs (default: next to dashport-hu, else PATH)"),
            .value("timeout", "S", "seconds to wait for any one server message (default 30)"),
            .value("log-level", "L", "trace, debug, info, notice, warning (default), error; to stderr"),
        ])

    static func run(_ arguments: [String]) async -> Int32 {
        let address: ListenAddress?
        let timeout: Duration
        let parsed: Arguments
        do {
            parsed = try Arguments(arguments, spec: spec)
            if parsed.wantsHelp {
                Console.out(usage)
                return 0
            }
            address = try target(parsed)
            timeout = try parsed.seconds("timeout", default: .seconds(30))
        } catch {
            Console.err("dashport-hu replay: \(error)\n")
            Console.err(usage)
            return 2
        }
        let recording: SessionRecording
        let logger: Logger
        do {
            recording = try read(parsed.positionals[0])
            logger = try parsed.logger()
        } catch {
            Console.err("dashport-hu replay: \(error)")
            return 2
        }
        var server: ReplayServer?
        if address == nil {
            do {
                server = try ReplayServer(executable: parsed.string("dashport") ?? ReplayServer.defaultExecutable())
            } catch {
                Console.err("dashport-hu replay: \(error)")
                return 2
            }
        }
        guard let connectTo = address ?? server?.address else { return 2 }
        let replayer = SessionReplayer(recording: recording, timeout: timeout, logger: logger) { _ in
            try await TCPClient.connect(to: connectTo, logger: logger)
        }
        let report = await replayer.run()
        server?.stop()
        Console.out(report.description)
        return report.passed ? 0 : 1
    }

    /// The server to replay against: HOST:PORT, or nil with --serve (which takes none).
    static func target(_ parsed: Arguments) throws -> ListenAddress? {
        if parsed.flag("serve") {
            guard parsed.positionals.count == 1 else { throw UsageError("--serve starts its own server: give only the recording FILE") }
            return nil
        }
        if parsed.string("dashport") != nil { throw UsageError("--dashport goes with --serve") }
        guard parsed.positionals.count == 2 else { throw UsageError("give a recording FILE and HOST:PORT (or FILE --serve)") }
        do {
            return try ListenAddress.parse(parsed.positionals[1])
        } catch {
            throw UsageError("\(parsed.positionals[1]): \(error)")
        }
    }

    /// Reads the recording; every failure is one line naming the file (a missing file is not a
    /// Foundation error dump, and not a usage error).
    static func read(_ path: String) throws(ReplayCommandError) -> SessionRecording {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ReplayCommandError("\(path): no such recording")
        }
        if isDirectory.boolValue { throw ReplayCommandError("\(path) is a directory, not a recording") }
        do {
            return try SessionRecording.read(from: path)
        } catch let error as RecordingError {
            throw ReplayCommandError("\(error)")
        } catch {
            let reason = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError ?? error as NSError).localizedDescription
            throw ReplayCommandError("\(path): cannot be read (\(reason))")
        }
    }
}
