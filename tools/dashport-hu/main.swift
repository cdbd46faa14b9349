// dashport-hu: a head-unit emulator for Dashport, built from the same layers in the car role.
import Foundation

let usage = """
    usage: dashport-hu <command> [options]

    A desktop head unit (car) that connects to a Dashport server (the phone side of an AAP link).

    commands:
      connect HOST:PORT   complete the link, print what was negotiated, wait for pings, say bye-bye
      browse HOST:PORT    browse and play through the Dashport media channel, as text screens
      record HOST:PORT --out FILE   browse (interactive or --script) and record every message
      replay FILE HOST:PORT         play a recording's car side, compare every server message

    Run "dashport-hu <command> --help" for a command's options. Try, next to `swift run dashport serve`:
      dashport-hu connect 127.0.0.1:5277
      dashport-hu browse 127.0.0.1:5277
    """

let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
switch arguments.first {
case "connect":
    status = await ConnectCommand.run(Array(arguments.dropFirst()))
case "browse":
    status = await BrowseCommand.run(Array(arguments.dropFirst()))
case "record":
    status = await RecordCommand.run(Array(arguments.dropFirst()))
case "replay":
    status = await ReplayCommand.run(Array(arguments.dropFirst()))
case "-h", "--help", "help":
    Console.out(usage)
    status = 0
case nil:
    Console.err(usage)
    status = 2
case let other?:
    Console.err("dashport-hu: unknown command \"\(other)\"\n")
    Console.err(usage)
    status = 2
}
exit(status)
