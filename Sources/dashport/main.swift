import DashportCommandLine
import DashportFiles
import DashportServer
import FoundationEssentials
import Glibc

// `dashport`: the command line. Each command answers --help (generated from its option table in
// ConfigurationParser); errors go to standard error with exit status 2.

// First of all, before any thread can ask malloc for an arena: glibc fixes its arena limit the
// first time a second arena is wanted, and a later mallopt does not lower it (the server's soak
// found three arenas with the limit set in ServerMain.run).
ServerMain.limitMallocArenas()

let program = CommandSet(
    program: "dashport",
    summary: "The phone side of an Android-Auto-style link: serves car head units their media.",
    commands: [
        ("serve", "", "serve cars over TCP and USB (the embedded demo library unless --catalog is given)"),
        ("fingerprint", "", "print the SHA-256 fingerprint of the server certificate in a state directory"),
        ("ctl", "COMMAND [ARGUMENT...]", "control a running server: status, cars, invalidate, reload, session"),
        ("audio-in", "", "copy raw PCM from standard input to a running server's audio input (MPD's pipe output)"),
        ("catalog", "check FILE...", "validate catalog files without serving them"),
        ("help", "[COMMAND]", "show this text, or a command's options"),
    ])

/// Writes `text` to standard error at once (no buffering), as every error message of the command.
func writeError(_ text: String) {
    let bytes = Array(text.utf8)
    bytes.withUnsafeBytes { try? Files.writeAll($0, to: 2, path: "standard error") }
}

func fail(_ message: String) -> Never {
    writeError("dashport: \(message)\n")
    exit(2)
}

/// Parses a command's arguments, or prints its help and exits when asked to.
func configuration(_ arguments: [String], _ spec: CommandSpec) -> ServerConfiguration {
    do {
        if try ParsedCommand.parse(arguments, as: spec).wantsHelp {
            print(spec.help)
            exit(0)
        }
        return try ConfigurationParser.parse(arguments: arguments, as: spec)
    } catch {
        fail("\(error)")
    }
}

let choice: CommandSet.Choice
do {
    choice = try program.choose(Array(CommandLine.arguments.dropFirst()))
} catch {
    fail("\(error)\n\n\(program.help)")
}

switch choice {
case .help(let topic):
    switch topic {
    case "serve": print(ConfigurationParser.serve.help)
    case "fingerprint": print(ConfigurationParser.fingerprint.help)
    case "ctl": print(ctlSpec.help)
    case "audio-in": print(audioInSpec.help)
    case "catalog": print(catalogSpec.help)
    default: print(program.help)
    }
case .command("serve", let arguments):
    let configuration = configuration(arguments, ConfigurationParser.serve)
    do {
        try configuration.validate()
    } catch {
        fail("\(error)")
    }
    do {
        try await ServerMain.run(configuration: configuration)
    } catch {
        fail("\(error)")
    }
case .command("fingerprint", let arguments):
    let configuration = configuration(arguments, ConfigurationParser.fingerprint)
    do {
        print(try ServerMain.fingerprint(stateDirectory: configuration.stateDirectory))
    } catch {
        fail("\(error)")
    }
case .command("ctl", let arguments):
    exit(await runCtl(arguments))
case .command("audio-in", let arguments):
    exit(runAudioIn(arguments))
case .command("catalog", let arguments):
    exit(runCatalog(arguments))
case .command(let other, _):
    fail("command '\(other)' is listed but not handled")
}
