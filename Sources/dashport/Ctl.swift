import DashportCommandLine
import DashportControl
import DashportServer
import FoundationEssentials
import Glibc

// `dashport ctl`: its options come before the request; everything from the first word that is not
// an option on is the request itself (so `invalidate --all` reaches the server as written).

let ctlSpec = CommandSpec(
    name: "dashport ctl",
    synopsis: "[options] COMMAND [ARGUMENT...]",
    summary: """
        Talks to a running `dashport serve` through its control socket (STATE-DIR/control.sock,
        mode 0600; the same --state-dir or --config as the server finds it). Prints the answer's
        lines on standard output and exits 0; a refused request prints `dashport ctl: TEXT` on
        standard error and exits 1; no server exits 2. Answer lines are key=value pairs (values with
        spaces are quoted).
        """,
    positionals: ["COMMAND", "ARGUMENT..."],
    options: ConfigurationParser.serveOptions.filter { $0.name == "state-dir" || $0.name == "config" }
        + [.value("socket", "PATH", "the control socket itself (default STATE-DIR/control.sock)")],
    epilogue: "commands:\n" + ControlClient.usage.map { "  " + $0 }.joined(separator: "\n"))

/// Runs `dashport ctl` with the arguments after `ctl`; returns the exit status.
func runCtl(_ arguments: [String]) async -> Int32 {
    func usageError(_ text: String) -> Int32 {
        writeError("dashport ctl: \(text)\n")
        return 2
    }
    // Leading options (and their values) are the command's; the rest is the request.
    var split = 0
    while split < arguments.count, arguments[split].hasPrefix("-") {
        let argument = arguments[split]
        split += 1
        if argument == "--" { break }
        let takesValue = ctlSpec.option(String(argument.dropFirst(2))).map { $0.kind != .flag } ?? false
        if takesValue, !argument.contains("=") { split += 1 }
    }
    let leading = Array(arguments.prefix(min(split, arguments.count))).filter { $0 != "--" }
    let words = Array(arguments.dropFirst(min(split, arguments.count)))
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
    if let socket = options.value("socket") {
        path = socket
    } else {
        // The state directory as `dashport serve` would find it, config file included.
        var serverSide: [String] = []
        if let directory = options.value("state-dir") { serverSide += ["--state-dir", directory] }
        if let config = options.value("config") { serverSide += ["--config", config] }
        do {
            path = ControlClient.socketPath(
                stateDirectory: try ConfigurationParser.parse(arguments: serverSide, as: ConfigurationParser.fingerprint).stateDirectory)
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
