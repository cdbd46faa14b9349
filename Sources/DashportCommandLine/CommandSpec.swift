/// One option of a command: a row of the table the parser, `--help` and the config file share.
public struct OptionSpec: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// `--name`, no value.
        case flag
        /// `--name VALUE` or `--name=VALUE`, at most once.
        case value(placeholder: String)
        /// `--name VALUE`, any number of times; every value is kept, in order.
        case repeatable(placeholder: String)
    }

    /// The long name, without `--`.
    public var name: String
    public var kind: Kind
    /// One line for `--help`.
    public var help: String

    public static func flag(_ name: String, _ help: String) -> OptionSpec { OptionSpec(name: name, kind: .flag, help: help) }

    public static func value(_ name: String, _ placeholder: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, kind: .value(placeholder: placeholder), help: help)
    }

    public static func repeatable(_ name: String, _ placeholder: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, kind: .repeatable(placeholder: placeholder), help: help)
    }

    var takesValue: Bool { kind != .flag }

    var isRepeatable: Bool {
        if case .repeatable = kind { true } else { false }
    }

    var placeholder: String? {
        switch kind {
        case .flag: nil
        case .value(let placeholder), .repeatable(let placeholder): placeholder
        }
    }
}

/// A command (or subcommand): its name, what it does, its positional arguments and its options.
///
/// To add an option, add one row to `options`, e.g. `.value("record-dir", "DIR", "where recordings go")`,
/// then read it from ``ParsedCommand`` (`parsed.value("record-dir")`). `--help`, the unknown-option
/// check, the config file (`record-dir = /var/rec`) and the tests of every error path follow from
/// the row; a subcommand is one more ``CommandSpec`` in a ``CommandSet``.
public struct CommandSpec: Sendable {
    /// The full command as typed, for messages and usage (`dashport serve`).
    public var name: String
    /// The usage line's arguments after the name, e.g. `HOST:PORT [options]`.
    public var synopsis: String
    /// What the command does: one paragraph or more, printed under the usage line.
    public var summary: String
    /// The positional arguments accepted, as named in the synopsis (at most this many).
    public var positionals: [String]
    public var options: [OptionSpec]
    /// Text printed after the options (examples, notes); may be empty.
    public var epilogue: String

    public init(
        name: String, synopsis: String = "[options]", summary: String, positionals: [String] = [],
        options: [OptionSpec], epilogue: String = ""
    ) {
        self.name = name
        self.synopsis = synopsis
        self.summary = summary
        self.positionals = positionals
        self.options = options
        self.epilogue = epilogue
    }

    /// The option named `name` (without `--`), if the command has one.
    public func option(_ name: String) -> OptionSpec? { options.first { $0.name == name } }

    /// `--help`, generated from the table.
    public var help: String {
        var text = "usage: \(name) \(synopsis)\n\n\(summary)\n\noptions:\n"
        let rows =
            options.map { option in ("  --\(option.name)" + (option.placeholder.map { " \($0)" } ?? ""), option) }
            + [("  -h, --help", OptionSpec.flag("help", "this text"))]
        let width = min(34, (rows.map(\.0.count).max() ?? 0) + 2)
        for (left, option) in rows {
            let repeatNote = option.isRepeatable ? " (repeatable)" : ""
            if left.count + 1 > width {
                text += left + "\n" + String(repeating: " ", count: width) + option.help + repeatNote + "\n"
            } else {
                text += left + String(repeating: " ", count: width - left.count) + option.help + repeatNote + "\n"
            }
        }
        if !epilogue.isEmpty { text += "\n" + epilogue + "\n" }
        return text
    }
}

/// A mistake on a command line or in a config file: printed with the command's usage, exit status 2.
public struct CommandLineError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
