// dashport-hu: a head-unit emulator for Dashport, built from the same layers in the car role.
import Foundation

import DashportCommandLine

let program = CommandSet(
    program: "dashport-hu",
    summary: "A desktop head unit (car) that connects to a Dashport server (the phone side of an AAP link).",
    commands: [
        ("connect", "HOST:PORT", "complete the link, print what was negotiated, wait for pings, say bye-bye"),
        ("browse", "HOST:PORT", "browse and play through the Dashport media channel, as text screens"),
        ("web", "HOST:PORT --listen 127.0.0.1:PORT", "the head unit as a web page: tabs, covers, now playing and sound in a browser"),
        ("record", "HOST:PORT --out FILE", "browse (interactive or --script) and record every message of the session"),
        ("replay", "FILE HOST:PORT", "play a recording's car side against a server, compare every server message"),
    ],
    epilogue: """
        Try, next to `swift run dashport serve`:
          dashport-hu connect 127.0.0.1:5277
          dashport-hu browse 127.0.0.1:5277
          dashport-hu web 127.0.0.1:5277 --listen 127.0.0.1:8080 --open
        """)

let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
do {
    switch try program.choose(arguments) {
    case .command("connect", let rest):
        status = await ConnectCommand.run(rest)
    case .command("browse", let rest):
        status = await BrowseCommand.run(rest)
    case .command("web", let rest):
        status = await WebCommand.run(rest)
    case .command("record", let rest):
        status = await RecordCommand.run(rest)
    case .command("replay", let rest):
        status = await ReplayCommand.run(rest)
    case .help(let topic):
        switch topic {
        case "connect": Console.out(ConnectCommand.spec.help)
        case "browse": Console.out(BrowseCommand.spec.help)
        case "web": Console.out(WebCommand.spec.help)
        case "record": Console.out(RecordCommand.usage)
        case "replay": Console.out(ReplayCommand.usage)
        default: arguments.isEmpty ? Console.err(program.help) : Console.out(program.help)
        }
        status = arguments.isEmpty ? 2 : 0
    case .command(let other, _):
        Console.err("dashport-hu: command \(other) is listed but not handled")
        status = 2
    }
} catch {
    Console.err("dashport-hu: \(error)\n")
    Console.err(program.help)
    status = 2
}
exit(status)
