/// A program made of subcommands (`dashport serve`, `dashport fingerprint`): its usage text and
/// the lookup of the first argument.
public struct CommandSet: Sendable {
    public var program: String
    public var summary: String
    /// Each subcommand's name (with its positional arguments, as shown in the usage) and summary.
    public var commands: [(name: String, arguments: String, summary: String)]
    public var epilogue: String

    public init(program: String, summary: String, commands: [(name: String, arguments: String, summary: String)], epilogue: String = "") {
        self.program = program
        self.summary = summary
        self.commands = commands
        self.epilogue = epilogue
    }

    /// The program's usage, generated from the command list.
    public var help: String {
        var text = "usage: \(program) <command> [options]\n\n\(summary)\n\ncommands:\n"
        let lefts = commands.map { "  \($0.name)" + ($0.arguments.isEmpty ? "" : " \($0.arguments)") }
        let width = (lefts.map(\.count).max() ?? 0) + 3
        for (left, command) in zip(lefts, commands) {
            text += left + String(repeating: " ", count: width - left.count) + command.summary + "\n"
        }
        text += "\nRun `\(program) <command> --help` for a command's options."
        if !epilogue.isEmpty { text += "\n" + epilogue }
        return text + "\n"
    }

    /// What the first argument asks for: a subcommand with its arguments, or the program's help.
    public enum Choice: Sendable, Hashable {
        case command(String, arguments: [String])
        /// No command, `help`, `-h` or `--help`; `topic` is the command after `help`, if any.
        case help(topic: String?)
    }

    /// Looks up `arguments.first`; an unknown command is named as unknown.
    public func choose(_ arguments: [String]) throws(CommandLineError) -> Choice {
        guard let first = arguments.first else { return .help(topic: nil) }
        if first == "help" || first == "-h" || first == "--help" { return .help(topic: arguments.dropFirst().first) }
        guard commands.contains(where: { $0.name == first }) else {
            throw CommandLineError("unknown command '\(first)' (commands: \(commands.map(\.name).joined(separator: ", ")))")
        }
        return .command(first, arguments: Array(arguments.dropFirst()))
    }
}
