/// One `name = value` (or `--name value`) setting, with where it came from for error messages.
public struct OptionAssignment: Sendable, Hashable {
    public var name: String
    /// The value; `"true"` for a flag given on the command line.
    public var value: String
    /// `--name` for the command line, `FILE:LINE` for a config file.
    public var origin: String

    public init(name: String, value: String, origin: String) {
        self.name = name
        self.value = value
        self.origin = origin
    }
}

/// What a command line said, checked against its ``CommandSpec``: the one option parser of
/// `dashport`, `dashport-hu` and the benchmarks.
///
/// **Adding an option** is one row in the command's ``CommandSpec/options``:
/// `.flag("usb", "serve over the USB gadget")`, `.value("record-dir", "DIR", "where recordings go")`
/// or `.repeatable("allow-fingerprint", "SHA256", "…")`. Then read it here: ``flag(_:)``,
/// ``value(_:)``, ``values(_:)``, or checked with ``integer(_:minimum:)`` / ``number(_:in:)``.
/// `--help`, the unknown-option check and the config file (``merging(configFile:path:)``, where
/// `dashport serve` reads it) follow from the row. For `dashport serve`, also give the option a
/// `case` in `ConfigurationParser.apply` (a test fails for a row without one).
///
/// **Adding a subcommand** (`dashport ctl`, `dashport record`) is one entry in the program's
/// ``CommandSet`` and its own ``CommandSpec``; the program's `switch` on ``CommandSet/choose(_:)``
/// runs it.
public struct ParsedCommand: Sendable {
    public let spec: CommandSpec
    public private(set) var positionals: [String] = []
    /// Every setting in the order given (config file lines first when merged by ``merging(configFile:path:)``).
    public private(set) var assignments: [OptionAssignment] = []
    /// `-h` or `--help` was given; nothing else was checked beyond unknown options.
    public private(set) var wantsHelp = false

    init(spec: CommandSpec) { self.spec = spec }

    /// The value of a `.value` option (the last one given, so the command line wins over a file).
    public func value(_ name: String) -> String? { assignments.last { $0.name == name }?.value }

    /// Every value of a `.repeatable` option, in order.
    public func values(_ name: String) -> [String] { assignments.filter { $0.name == name }.map(\.value) }

    /// Whether a flag was given (on the command line, or as `name = true` in a config file).
    public func flag(_ name: String) -> Bool { value(name) == "true" }

    /// A whole number of at least `minimum`, or nil if the option was not given.
    public func integer(_ name: String, minimum: Int = 1) throws(CommandLineError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), number >= minimum else {
            throw CommandLineError("--\(name): \"\(text)\" is not a whole number of at least \(minimum)")
        }
        return number
    }

    /// A finite number within `range`, or nil if the option was not given.
    public func number(_ name: String, in range: ClosedRange<Double>) throws(CommandLineError) -> Double? {
        guard let text = value(name) else { return nil }
        guard let number = Double(text), number.isFinite, range.contains(number) else {
            throw CommandLineError("--\(name): \"\(text)\" is not a number from \(format(range.lowerBound)) to \(format(range.upperBound))")
        }
        return number
    }

    private func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// Parses `arguments` (without the command's own name) against `spec`.
    ///
    /// `--name value`, `--name=value`, `--flag`, `-h`/`--help`, positionals, and `--` (everything
    /// after it is positional). Errors name the problem: an unknown option is called unknown
    /// before anything else is looked at, a missing value names its placeholder, a flag given a
    /// value, an option given twice that is not repeatable, a positional too many.
    public static func parse(_ arguments: [String], as spec: CommandSpec) throws(CommandLineError) -> ParsedCommand {
        var parsed = ParsedCommand(spec: spec)
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "-h" || argument == "--help" {
                parsed.wantsHelp = true
                continue
            }
            guard argument.hasPrefix("--") else { throw CommandLineError("unknown option \(argument) (see \(spec.name) --help)") }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let option = spec.option(name) else { throw CommandLineError("unknown option --\(name) (see \(spec.name) --help)") }
            let value: String
            if !option.takesValue {
                guard inlineValue == nil else { throw CommandLineError("--\(name) takes no value") }
                value = "true"
            } else if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else { throw CommandLineError("--\(name) needs a value (\(option.placeholder ?? "VALUE"))") }
                value = arguments[index]
                index += 1
            }
            try parsed.add(OptionAssignment(name: name, value: value, origin: "--\(name)"), option)
        }
        if !parsed.wantsHelp, parsed.positionals.count > spec.positionals.count {
            let extra = parsed.positionals.dropFirst(spec.positionals.count)
            throw CommandLineError(
                "unexpected argument\(extra.count == 1 ? "" : "s") \(extra.joined(separator: " ")) (see \(spec.name) --help)")
        }
        return parsed
    }

    /// This command line with a config file's settings in front of its own, so the command line
    /// wins for single-valued options and repeatable ones collect from both.
    ///
    /// The file holds `name = value` lines with the long option names; `#` starts a comment; blank
    /// lines are ignored; a value may be quoted with `"` or `'`; a flag is `name = true` or
    /// `name = false`. Every error names the file and line.
    public func merging(configFile text: String, path: String) throws(CommandLineError) -> ParsedCommand {
        var merged = ParsedCommand(spec: spec)
        merged.positionals = positionals
        merged.wantsHelp = wantsHelp
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let origin = "\(path):\(index + 1)"
            let line = trimmed(raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            if line.isEmpty { continue }
            guard let equals = line.firstIndex(of: "=") else { throw CommandLineError("\(origin): expected 'name = value', got '\(line)'") }
            let name = trimmed(line[..<equals])
            let value = unquoted(trimmed(line[line.index(after: equals)...]))
            guard let option = spec.option(name) else {
                throw CommandLineError("\(origin): unknown option '\(name)' (see \(spec.name) --help)")
            }
            if !option.takesValue {
                guard value == "true" || value == "false" else {
                    throw CommandLineError("\(origin): \(name) is a flag: true or false, got '\(value)'")
                }
            } else if value.isEmpty {
                throw CommandLineError("\(origin): \(name) needs a value (\(option.placeholder ?? "VALUE"))")
            }
            try merged.add(OptionAssignment(name: name, value: value, origin: origin), option)
        }
        for assignment in assignments {
            if spec.option(assignment.name)?.isRepeatable == false {
                merged.assignments.removeAll { $0.name == assignment.name }  // the command line wins
            }
            merged.assignments.append(assignment)
        }
        return merged
    }

    private mutating func add(_ assignment: OptionAssignment, _ option: OptionSpec) throws(CommandLineError) {
        if !option.isRepeatable, let earlier = assignments.first(where: { $0.name == assignment.name }) {
            throw CommandLineError("\(assignment.origin): \(assignment.name) given twice (first at \(earlier.origin)); it takes one value")
        }
        assignments.append(assignment)
    }
}

private func trimmed(_ text: some StringProtocol) -> String {
    String(text.drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
}

private func unquoted(_ value: String) -> String {
    if value.count >= 2, let first = value.first, first == value.last, first == "\"" || first == "'" {
        return String(value.dropFirst().dropLast())
    }
    return value
}
