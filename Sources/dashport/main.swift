import Foundation
import DashportServer

// `dashport`: the command line. Each command answers --help; errors go to standard error with a
// non-zero exit status.

let usage = """
    usage: dashport <command> [options]

    commands:
      serve         serve cars over TCP (the embedded demo library unless --catalog is given)
      fingerprint   print the SHA-256 fingerprint of the server certificate in a state directory
      ctl           control a running server: status, cars, invalidate, reload, session
      help          show this text, or `dashport help <command>`

    Run `dashport <command> --help` for a command's options.
    """

func serveHelp() -> String {
    var text = """
        usage: dashport serve [options]

        Serves car head units over TCP: the AAP handshake, browse, artwork and playback.
        Stops cleanly on SIGINT or SIGTERM, saying BYEBYE to every connected car.

        options:

        """
    for option in ConfigurationParser.options {
        let left = "  --\(option.key) \(option.argument)"
        text += left.padding(toLength: max(left.count + 2, 32), withPad: " ", startingAt: 0) + option.help + "\n"
    }
    return text
}

let fingerprintHelp = """
    usage: dashport fingerprint [--state-dir DIR]

    Prints the SHA-256 fingerprint of the server certificate (creating the key and certificate in
    DIR if they do not exist yet), e.g. to pin it in a head unit.
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("dashport: \(message)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.isEmpty ? "help" : arguments.removeFirst()
let wantsHelp = arguments.contains("--help") || arguments.contains("-h")

switch command {
case "help", "--help", "-h":
    switch arguments.first {
    case "serve": print(serveHelp())
    case "fingerprint": print(fingerprintHelp)
    case "ctl": print(ctlHelp())
    default: print(usage)
    }
case "serve":
    if wantsHelp { print(serveHelp()); exit(0) }
    let configuration: ServerConfiguration
    do {
        configuration = try ConfigurationParser.parse(arguments: arguments)
        try configuration.validate()
    } catch {
        fail("\(error)")
    }
    do {
        try await ServerMain.run(configuration: configuration)
    } catch {
        fail("\(error)")
    }
case "fingerprint":
    if wantsHelp { print(fingerprintHelp); exit(0) }
    do {
        let configuration = try ConfigurationParser.parse(arguments: arguments)
        print(try ServerMain.fingerprint(stateDirectory: configuration.stateDirectory))
    } catch {
        fail("\(error)")
    }
case "ctl":
    exit(await runCtl(arguments))
default:
    fail("unknown command '\(command)'\n\(usage)")
}
