import Foundation
import DashportControl
import DashportServer

// `dashport ctl`: kept apart from the serve/fingerprint option parsing on purpose (its options are
// its own two), so it moves into the table-driven parser as one entry.

func ctlHelp() -> String {
    """
    usage: dashport ctl [--state-dir DIR | --socket PATH] COMMAND [ARGUMENT...]

    Talks to a running `dashport serve` through its control socket (DIR/control.sock, mode 0600;
    DIR is the server's --state-dir, with the same default). Prints the answer's lines on standard
    output and exits 0; a refused request prints `dashport ctl: TEXT` on standard error and exits 1;
    no server exits 2. Every answer line is key=value pairs (values with spaces are quoted).

    commands:
    \(ControlClient.usage.map { "  " + $0 }.joined(separator: "\n"))
    """
}

/// Runs `dashport ctl` with the arguments after `ctl`; returns the exit status.
func runCtl(_ arguments: [String]) async -> Int32 {
    var stateDirectory = ServerConfiguration.defaultStateDirectory()
    var socket: String?
    var words: [String] = []
    var rest = arguments[...]
    while let argument = rest.first, words.isEmpty, argument.hasPrefix("--") {
        rest.removeFirst()
        switch argument {
        case "--help":
            print(ctlHelp())
            return 0
        case "--state-dir", "--socket":
            guard let value = rest.popFirst() else {
                FileHandle.standardError.write(Data("dashport ctl: \(argument) needs a value\n".utf8))
                return 2
            }
            if argument == "--socket" { socket = value } else { stateDirectory = value }
        default:
            FileHandle.standardError.write(Data("dashport ctl: unknown option \(argument)\n\(ctlHelp())\n".utf8))
            return 2
        }
    }
    words = Array(rest)
    guard !words.isEmpty else {
        FileHandle.standardError.write(Data("dashport ctl: no command given\n\(ctlHelp())\n".utf8))
        return 2
    }
    let path = socket ?? ControlClient.socketPath(stateDirectory: stateDirectory)
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
            FileHandle.standardError.write(Data("dashport ctl: \(text)\n".utf8))
            return 1
        }
    } catch {
        FileHandle.standardError.write(Data("dashport ctl: \(error)\n".utf8))
        return 2
    }
}
