import Foundation
import DashportEmulator
import DashportLink
import DashportRecording

/// `dashport-hu record HOST:PORT --out FILE [browse options]`: a browse session, recorded.
/// Its own options are `--out`, `--overwrite` and `--description`; the rest are `browse`'s.
enum RecordCommand {
    static let usage = """
        usage: dashport-hu record HOST:PORT --out FILE [--overwrite] [--description TEXT] [browse options]

        Runs "dashport-hu browse" (interactive, or --script FILE) and records every AAP message of
        the session, both directions, as a session recording (one JSON line per message; keys,
        certificates and TLS bytes are never recorded). "dashport-hu replay FILE HOST:PORT" plays it
        back against any server.

        When FILE exists, the new session is compared with it first: if they differ, the
        differences are printed and FILE is left alone unless --overwrite is given (exit 1).

        A script may drive several cars: a line "car N [browse options]" starts a section run by car
        N (connected the first time it appears), "leave" ends that car's connection with a bye-bye; a
        later "car N" connects it again. Sections run in file order.

        Exits 0 when the recording was written (or is unchanged), 1 on a failure or an unwritten
        difference, 2 on a usage error. "dashport-hu browse --help" lists the browse options.
        """

    static func run(_ arguments: [String]) async -> Int32 {
        let own = split(arguments)
        guard !own.help else {
            Console.out(usage)
            return 0
        }
        let setup: BrowseCommand.Setup
        var sections: [MultiCarScript.Section]?
        var base = own.rest
        do throws(UsageError) {
            guard own.out != nil else { throw UsageError("--out FILE is required") }
            if let index = base.firstIndex(of: "--script"), index + 1 < base.count {
                sections = try MultiCarScript.sections(try Console.readScript(base[index + 1], limit: EmulatorScript.maxBytes))
                if sections != nil { base.removeSubrange(index...(index + 1)) }
            }
            let parsed = try Arguments(base, spec: BrowseCommand.spec)
            guard let built = try BrowseCommand.parse(parsed) else { return 0 }
            setup = built
        } catch {
            Console.err("dashport-hu record: \(error)\n")
            Console.err(usage)
            return 2
        }
        let path = own.out ?? ""
        let recorder = SessionRecorder(side: .car, description: own.description ?? "recorded with dashport-hu record")
        let status: Int32
        if let sections {
            status = await MultiCarScript.run(sections, base: base, recorder: recorder)
        } else {
            status = await BrowseCommand.browse(setup, tap: recorder.tap(car: recorder.addCar()))
        }
        guard status == 0 else {
            Console.err("dashport-hu record: the session failed; \(path) not written")
            return status
        }
        return save(recorder.recording, to: path, overwrite: own.overwrite)
    }

    /// Writes `recording`, or shows how it differs from the file already there.
    static func save(_ recording: SessionRecording, to path: String, overwrite: Bool) -> Int32 {
        if FileManager.default.fileExists(atPath: path), let old = try? SessionRecording.read(from: path) {
            let differences = RecordingDiff.differences(old: old, new: recording)
            if differences.isEmpty {
                Console.err("dashport-hu record: \(path) unchanged (\(recording.entries.count) messages)")
                return 0
            }
            Console.err("dashport-hu record: the new session differs from \(path):")
            Console.err(differences.joined(separator: "\n"))
            guard overwrite else {
                Console.err("dashport-hu record: \(path) left as it was; run again with --overwrite to replace it")
                return 1
            }
        }
        do {
            try SessionRecording.write(recording, to: path)
        } catch {
            Console.err("dashport-hu record: cannot write \(path): \(error)")
            return 1
        }
        Console.err("dashport-hu record: wrote \(recording.entries.count) messages to \(path)")
        return 0
    }

    private static func split(_ arguments: [String]) -> (out: String?, overwrite: Bool, description: String?, help: Bool, rest: [String]) {
        var out: String?
        var description: String?
        var overwrite = false
        var help = false
        var rest: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            switch argument {
            case "--overwrite": overwrite = true
            case "-h", "--help": help = true
            case "--out", "--description":
                let value = index < arguments.count ? arguments[index] : nil
                index += 1
                if argument == "--out" { out = value } else { description = value }
            default:
                if argument.hasPrefix("--out=") {
                    out = String(argument.dropFirst(6))
                } else if argument.hasPrefix("--description=") {
                    description = String(argument.dropFirst(14))
                } else {
                    rest.append(argument)
                }
            }
        }
        return (out, overwrite, description, help, rest)
    }
}
