// dashport-hu: a head-unit emulator for Dashport, built from the same layers in the car role.
import Foundation

import DashportCommandLine

let program = CommandSet(
    program: "dashport-hu",
    summary: "A desktop head unit (car) that connects to a Dashport server (the phone side of an AAP link).",
    commands: [
        ("connect", "HOST:PORT", "complete the link, print what was negotiated, wait for pings, say bye-bye"),
        ("browse", "HOST:PORT", "browse and play through the Dashport media channel, as text screens"),
    ],
    epilogue: """
        Try, next to `swift run dashport serve`:
          dashport-hu connect 127.0.0.1:5277
          dashport-hu browse 127.0.0.1:5277
        """)

let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
do {
    switch try program.choose(arguments) {
    case .command("connect", let rest):
        status = await ConnectCommand.run(rest)
    case .command("browse", let rest):
        status = await BrowseCommand.run(rest)
    case .help(let topic):
        switch topic {
        case "connect": Console.out(ConnectCommand.spec.help)
        case "browse": Console.out(BrowseCommand.spec.help)
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
