import DashportCommandLine
import DashportControl
import DashportServer
import FoundationEssentials
import Glibc

// `dashport ctl`: its own options (--state-dir, --config, --socket, --control-socket, --help) may
// stand anywhere, before or after the request; every other word, `--all` included, is the request
// itself, and everything after `--` is request words whatever they look like.

let ctlSpec = CommandSpec(
    name: "dashport ctl",
    synopsis: "[options] COMMAND [ARGUMENT...] [options]",
    summary: """
        Talks to a running `dashport serve` through its control socket (STATE-DIR/control.sock,
        mode 0600, or where the server had to put it; the same --state-dir, --config or
        --control-socket as the server finds it). Prints the answer's lines on standard output and
        exits 0; a refused request prints `dashport ctl: TEXT` on standard error and exits 1; no
        server exits 2. Answer lines are key=value pairs (values with spaces are quoted).
        """,
    positionals: ["COMMAND", "ARGUMENT..."],
    options: ConfigurationParser.serveOptions.filter { $0.name == "state-dir" || $0.name == "config" }
        + [
            .value("control-socket", "PATH", "the control socket itself (as given to dashport serve)"),
            .value("socket", "PATH", "the same as --control-socket"),
        ],
    epilogue: "commands:\n" + ControlClient.usage.map { "  " + $0 }.joined(separator: "\n"))

/// Runs `dashport ctl` with the arguments after `ctl`; returns the exit status.
func runCtl(_ arguments: [String]) async -> Int32 {
    func usageError(_ text: String) -> Int32 {
        writeError("dashport ctl: \(text)\n")
        return 2
    }
    let (leading, words) = ctlSpec.separatingOptions(arguments)
    let options: ParsedCommand
    do {
        options = try ParsedCommand.parse(leading, as: ctlSpec)
    } catch {
        return usageError("\(error)")
    }
    if options.wantsHelp {
        print(ctlSpec.help)
        return 0
    }
    guard !words.isEmpty else { return usageError("no command given (see dashport ctl --help)") }
    let path: String
    if let socket = options.value("control-socket") ?? options.value("socket") {
        path = socket
    } else {
        // The state directory and socket as `dashport serve` would find them, config file included.
        var serverSide: [String] = []
        if let directory = options.value("state-dir") { serverSide += ["--state-dir", directory] }
        if let config = options.value("config") { serverSide += ["--config", config] }
        do {
            let configuration = try ConfigurationParser.parse(arguments: serverSide, as: ConfigurationParser.fingerprint)
            path = configuration.controlSocket ?? ControlSocketLocation.find(stateDirectory: configuration.stateDirectory)
        } catch {
            return usageError("\(error)")
        }
    }
    do {
        switch try await ControlClient.send(words, socket: path) {
        case .ok(let lines):
            if !lines.isEmpty {
                print(lines.joined(separator: "\n"))
            } else if isatty(1) == 1, words.first == "cars" {
                print("(no cars connected)")  // a person at a terminal; a script reads zero lines
            }
            return 0
        case .error(let text):
            writeError("dashport ctl: \(text)\n")
            return 1
        }
    } catch {
        writeError("dashport ctl: \(error)\n")
        return 2
    }
}
