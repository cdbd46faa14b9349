import DashportLink
import DashportLog
import DashportTransport

/// A command-line mistake: printed with the command's usage, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The arguments of one subcommand: positionals, `--name value` / `--name=value` options and
/// `--flag`s. Only the names a subcommand declares are accepted.
struct Arguments {
    private(set) var positionals: [String] = []
    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    /// `valued`: option names that take a value; `flags`: names that do not. Both without `--`.
    init(_ arguments: [String], valued: Set<String>, flags flagNames: Set<String>) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "-h" {
                flags.insert("help")
                continue
            }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                positionals.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if flagNames.contains(name) || name == "help" {
                guard value == nil else { throw UsageError("--\(name) takes no value") }
                flags.insert(name)
            } else if valued.contains(name) {
                if value == nil {
                    guard index < arguments.count else { throw UsageError("--\(name) needs a value") }
                    value = arguments[index]
                    index += 1
                }
                values[name] = value
            } else {
                throw UsageError("unknown option --\(name)")
            }
        }
    }

    var wantsHelp: Bool { flags.contains("help") }

    func flag(_ name: String) -> Bool { flags.contains(name) }

    func string(_ name: String) -> String? { values[name] }

    /// The single HOST:PORT positional.
    func address() throws(UsageError) -> ListenAddress {
        guard positionals.count == 1 else {
            throw UsageError(positionals.isEmpty ? "missing HOST:PORT" : "unexpected arguments: \(positionals.dropFirst().joined(separator: " "))")
        }
        do {
            return try ListenAddress.parse(positionals[0])
        } catch {
            throw UsageError("\(error)")
        }
    }

    /// A whole number option, at least `minimum`.
    func count(_ name: String, minimum: UInt32 = 1) throws(UsageError) -> UInt32? {
        guard let text = values[name] else { return nil }
        guard let value = UInt32(text), value >= minimum else {
            throw UsageError("--\(name): \"\(text)\" is not a whole number of at least \(minimum)")
        }
        return value
    }

    /// A time in seconds (decimals allowed), more than 0.
    func seconds(_ name: String, default fallback: Duration) throws(UsageError) -> Duration {
        guard let text = values[name] else { return fallback }
        guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else {
            throw UsageError("--\(name): \"\(text)\" is not a number of seconds between 0 and 86400")
        }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// `--version MAJOR.MINOR`.
    func version(default fallback: AAPVersion) throws(UsageError) -> AAPVersion {
        guard let text = values["version"] else { return fallback }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let major = UInt16(parts[0]), let minor = UInt16(parts[1]) else {
            throw UsageError("--version: \"\(text)\" is not MAJOR.MINOR, e.g. 1.6")
        }
        return AAPVersion(major: major, minor: minor)
    }

    /// `--log-level`, default warning; log lines go to standard error.
    func logger() throws(UsageError) -> Logger {
        let name = values["log-level"] ?? "warning"
        guard let level = LogLevel(name: name) else {
            throw UsageError("--log-level: \"\(name)\" is not trace, debug, info, notice, warning or error")
        }
        return Logger(label: "dashport-hu", level: level)
    }
}
