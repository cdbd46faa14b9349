import DashportCommandLine
import DashportEmulator
import DashportLog
import DashportRecording
import DashportTransport

/// `dashport-hu replay FILE HOST:PORT`: plays the car side of a recording, compares the server.
enum ReplayCommand {
    static let usage = """
        usage: dashport-hu replay FILE HOST:PORT [--timeout S] [--log-level L]

        Plays the car side of a session recording (made with "dashport-hu record" or
        "dashport serve --record-dir") against a running server and compares every server message
        with the recorded one, ignoring the fields the recording declares volatile. Prints each
        difference with the recording's line, the message and the field.

        Exits 0 when every server message matched, 1 when any differed, was missing or was
        unexpected, 2 on a usage error or an unreadable recording.

        options:
          --timeout S     seconds to wait for any one server message (default 30)
          --log-level L   trace, debug, info, notice, warning (default), error; to stderr
        """

    static let spec = CommandSpec(
        name: "dashport-hu replay", synopsis: "FILE HOST:PORT [options]",
        summary: "Plays the car side of a session recording against a running server and compares every server message.",
        positionals: ["FILE", "HOST:PORT"],
        options: [
            .value("timeout", "S", "seconds to wait for any one server message (default 30)"),
            .value("log-level", "L", "trace, debug, info, notice, warning (default), error; to stderr"),
        ])

    static func run(_ arguments: [String]) async -> Int32 {
        let recording: SessionRecording
        let address: ListenAddress
        let timeout: Duration
        let parsed: Arguments
        do {
            parsed = try Arguments(arguments, spec: spec)
            if parsed.wantsHelp {
                Console.out(usage)
                return 0
            }
            guard parsed.positionals.count == 2 else { throw UsageError("give a recording FILE and HOST:PORT") }
            do {
                address = try ListenAddress.parse(parsed.positionals[1])
            } catch {
                throw UsageError("\(parsed.positionals[1]): \(error)")
            }
            timeout = try parsed.seconds("timeout", default: .seconds(30))
            recording = try SessionRecording.read(from: parsed.positionals[0])
        } catch {
            Console.err("dashport-hu replay: \(error)\n")
            Console.err(usage)
            return 2
        }
        let logger: Logger
        do {
            logger = try parsed.logger()
        } catch {
            Console.err("dashport-hu replay: \(error)")
            return 2
        }
        let replayer = SessionReplayer(recording: recording, timeout: timeout, logger: logger) { _ in
            try await TCPClient.connect(to: address, logger: logger)
        }
        let report = await replayer.run()
        Console.out(report.description)
        return report.passed ? 0 : 1
    }
}
