import DashportCommandLine
import DashportEmulator
import DashportHeadUnit
import DashportLink
import DashportLog
import DashportTransport
import DashportTLS

/// A command-line mistake: printed with the command's usage, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One subcommand's arguments, parsed by the shared ``ParsedCommand`` against the subcommand's
/// ``CommandSpec`` (so unknown options, missing values and `--help` behave as in `dashport`), with
/// the typed readings the emulator needs.
struct Arguments {
    let parsed: ParsedCommand

    init(_ arguments: [String], spec: CommandSpec) throws(UsageError) {
        do {
            parsed = try ParsedCommand.parse(arguments, as: spec)
        } catch {
            throw UsageError(error.description)
        }
    }

    var positionals: [String] { parsed.positionals }

    var wantsHelp: Bool { parsed.wantsHelp }

    func flag(_ name: String) -> Bool { parsed.flag(name) }

    func string(_ name: String) -> String? { parsed.value(name) }

    /// The single HOST:PORT positional.
    func address() throws(UsageError) -> ListenAddress {
        guard positionals.count == 1 else {
            throw UsageError(
                positionals.isEmpty ? "missing HOST:PORT" : "unexpected arguments: \(positionals.dropFirst().joined(separator: " "))")
        }
        do {
            return try ListenAddress.parse(positionals[0])
        } catch {
            throw UsageError("\(error)")
        }
    }

    /// A whole number option, at least `minimum`.
    func count(_ name: String, minimum: UInt32 = 1) throws(UsageError) -> UInt32? {
        guard let text = parsed.value(name) else { return nil }
        guard let value = UInt32(text), value >= minimum else {
            throw UsageError("--\(name): \"\(text)\" is not a whole number of at least \(minimum)")
        }
        return value
    }

    /// A time in seconds (decimals allowed), more than 0.
    func seconds(_ name: String, default fallback: Duration) throws(UsageError) -> Duration {
        guard let text = parsed.value(name) else { return fallback }
        guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else {
            throw UsageError("--\(name): \"\(text)\" is not a number of seconds between 0 and 86400")
        }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// `--version MAJOR.MINOR`.
    func version(default fallback: AAPVersion) throws(UsageError) -> AAPVersion {
        guard let text = parsed.value("version") else { return fallback }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let major = UInt16(parts[0]), let minor = UInt16(parts[1]) else {
            throw UsageError("--version: \"\(text)\" is not MAJOR.MINOR, e.g. 1.6")
        }
        return AAPVersion(major: major, minor: minor)
    }

    /// `--log-level`, default warning; log lines go to standard error.
    func logger() throws(UsageError) -> Logger {
        let name = parsed.value("log-level") ?? "warning"
        guard let level = LogLevel(name: name) else {
            throw UsageError("--log-level: \"\(name)\" is not trace, debug, info, notice, warning or error")
        }
        return Logger(label: "dashport-hu", level: level)
    }

    /// `--identity DIR`, the option text every connecting command shares.
    static let identityOption = OptionSpec.value(
        "identity", "DIR",
        "keep the client certificate in DIR (made on first use, 0600) so a server can pin it; default: a new one every run")

    /// `--first-answer S`, the option text every connecting command shares.
    static let firstAnswerOption = OptionSpec.value(
        "first-answer", "S", "seconds the phone has to answer the VERSION_REQUEST before it is called not an AAP phone (default 3)")

    /// `--first-answer` into `configuration`, and a bye-bye grace that grows with the command's
    /// `timeout`: a patient car (a phone on a slow bus, a loaded VM) waits a sixth of it for the
    /// answer to its bye-bye; the default stays a real phone's second.
    func applyPatience(to configuration: inout HeadUnitConfiguration, timeout: Duration) throws(UsageError) {
        configuration.firstAnswerDeadline = try seconds("first-answer", default: configuration.firstAnswerDeadline ?? .seconds(3))
        configuration.byeByeGrace = max(configuration.byeByeGrace, timeout / 6)
    }

    /// The client identity of `--identity DIR` (made on first use; its fingerprint is printed to
    /// standard error, to pin), or nil for a new one every run. A broken identity is an error, not
    /// a silent new key.
    func identity() throws(UsageError) -> TLSIdentity? {
        guard let directory = parsed.value("identity") else { return nil }
        do {
            let (identity, created) = try TLSIdentity.loadOrCreateClient(directory: directory)
            Console.err(
                "dashport-hu: client certificate sha256 \(identity.fingerprintSHA256) (\(created ? "made in" : "from") \(directory))")
            return identity
        } catch {
            throw UsageError("--identity \(directory): \(error)")
        }
    }
}
