public import DashportCommandLine
import DashportLog
import DashportTransport
public import FoundationEssentials
import Glibc

/// The command lines of `dashport serve` and `dashport fingerprint` as `CommandSpec` tables, and
/// how each option lands in a ``ServerConfiguration``. The config file (`--config FILE`) uses the
/// same table: its keys are the long option names.
///
/// To add an option: one row in ``serveOptions`` and one `case` in `apply(_:to:)`; `--help`, the
/// config file and the unknown-option check follow from the row.
public enum ConfigurationParser {
    /// Every option of `dashport serve`, with the help text `--help` prints.
    public static let serveOptions: [OptionSpec] =
        [
            .value("listen", "HOST:PORT", "address to listen on (default 127.0.0.1:5277; port 0 = any free port, printed on start)"),
            .value(
                "state-dir", "DIR",
                "server key/certificate, caches and session (default $XDG_STATE_HOME/dashport; "
                    + "created 0700 if missing, its parent must exist)"),
            .value("catalog", "FILE", "browse catalog JSON (default: the embedded demo library)"),
            .value(
                "mpd", "ADDRESS",
                "MPD as the library and the player: its socket path (/run/mpd/socket) or HOST:PORT; replaces the catalog"),
            .value("mpd-password", "PASSWORD", "the password from MPD's mpd.conf, if it has one (better in --config FILE)"),
            .value(
                "control-socket", "PATH",
                "the control socket for dashport ctl (default STATE-DIR/control.sock, else $XDG_RUNTIME_DIR/dashport "
                    + "or /run/dashport when the state directory cannot hold one; none: serve with a warning)"),
            .value("config", "FILE", "read these options from FILE (`key = value` lines, # comments); the command line wins"),
            .value("log-level", "LEVEL", "trace, debug, info (default), notice, warning or error"),
            .repeatable("allow-fingerprint", "SHA256", "allow a head unit by its certificate's SHA-256"),
            .value("ca-file", "FILE", "allow head units whose certificate chains to a CA in FILE (PEM)"),
            .value("label", "TEXT", "label the car shows for this phone (default Dashport)"),
            .value("device-name", "TEXT", "device name sent in service discovery"),
            .value(
                "reactors", "N",
                "reactor threads the cars are spread over (default one per core, at most \(EventLoop.maxReactors))"),
            .value("max-connections", "N", "cars linked at once (default 256)"),
            .value("max-messages-per-second", "N", "messages a linked car may send a second before it is slowed (default 1000)"),
            .value("max-cars-per-address", "N", "cars linked at once from one address, loopback included (default 128)"),
            .value("max-pending-connections", "N", "connections still in the handshake at once; the oldest goes first (default 64)"),
            .value("max-pending-per-address", "N", "connections still in the handshake from one non-loopback address (default 16)"),
            .value("handshake-timeout", "SECONDS", "time a car has to finish the handshake (default 10)"),
            .value("write-stall-timeout", "SECONDS", "time a car may leave our answers unread before it is closed (default 15)"),
            .value("idle-timeout", "SECONDS", "close a car silent this long once linked (default 0 = never)"),
            .value("record-dir", "DIR", "record every car's session into DIR (off by default; the files hold the cars' requests)"),
            .flag("no-audio", "do not open the cars' media audio sinks (status, metadata, keys and browse only)"),
        ] + SessionSettings.options + usbOptions

    public static let serve = CommandSpec(
        name: "dashport serve",
        summary: """
            Serves car head units over TCP: the AAP handshake, browse, artwork and playback.
            Stops cleanly on SIGINT or SIGTERM, saying BYEBYE to every connected car.
            """,
        options: serveOptions)

    public static let fingerprint = CommandSpec(
        name: "dashport fingerprint",
        summary: """
            Prints the SHA-256 fingerprint of the server certificate in the state directory, e.g. to pin
            it in a head unit. It never creates one: without an identity there (a mistyped directory, or
            a server that never ran there) it fails and says so; `dashport serve` makes it on first run.
            """,
        options: serveOptions.filter { $0.name == "state-dir" || $0.name == "config" })

    /// Parses a command's arguments against `spec`, reading `--config FILE` first (with the serve
    /// table, wherever the option appears) so that the command line wins over the file.
    public static func parse(
        arguments: [String], as spec: CommandSpec = serve,
        readFile: (String) throws -> String = { try String(contentsOfFile: $0, encoding: .utf8) }
    ) throws(ConfigurationError) -> ServerConfiguration {
        var config = ServerConfiguration()
        do {
            let commandLine = try ParsedCommand.parse(arguments, as: spec)
            if let path = commandLine.value("config") {
                let text: String
                do { text = try readFile(path) } catch {
                    throw ConfigurationError("--config \(path): cannot read it (\(ConfigurationError.reason(error)))")
                }
                for assignment in try ParsedCommand.parse([], as: serve).merging(configFile: text, path: path).assignments {
                    guard assignment.name != "config" else {
                        throw ConfigurationError("\(assignment.origin): a config file cannot include another")
                    }
                    try apply(assignment, to: &config)
                }
            }
            for assignment in commandLine.assignments where assignment.name != "config" {
                try apply(assignment, to: &config)
            }
        } catch let error as CommandLineError {
            throw ConfigurationError(error.description)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("\(error)")
        }
        return config
    }

    /// Sets one option; a later single-valued setting replaces an earlier one, a repeatable one adds.
    static func apply(_ assignment: OptionAssignment, to config: inout ServerConfiguration) throws(ConfigurationError) {
        let (key, value, origin) = (assignment.name, assignment.value, assignment.origin)
        func number(_ text: String) throws(ConfigurationError) -> Double {
            guard let v = Double(text), v.isFinite else { throw ConfigurationError("\(origin): \(key) needs a number, got '\(text)'") }
            return v
        }
        switch key {
        case "listen": config.listen = value
        case "state-dir": config.stateDirectory = value
        case "catalog": config.catalog = value
        case "mpd": config.mpd = value
        case "mpd-password": config.mpdPassword = value
        case "control-socket": config.controlSocket = value
        case "log-level":
            guard let level = LogLevel(name: value) else {
                throw ConfigurationError("\(origin): log-level must be one of trace, debug, info, notice, warning, error; got '\(value)'")
            }
            config.logLevel = level
        case "allow-fingerprint": config.allowedFingerprints.append(value)
        case "ca-file": config.caFile = value
        case "label": config.label = value
        case "device-name": config.deviceName = value
        case "reactors":
            guard let n = Int(value) else { throw ConfigurationError("\(origin): reactors needs a whole number, got '\(value)'") }
            config.reactors = n
        case "max-connections":
            guard let n = Int(value) else { throw ConfigurationError("\(origin): max-connections needs a whole number, got '\(value)'") }
            config.maxConnections = n
        case "max-messages-per-second":
            guard let n = Int(value) else {
                throw ConfigurationError("\(origin): max-messages-per-second needs a whole number, got '\(value)'")
            }
            config.maxMessagesPerSecond = n
        case "max-cars-per-address":
            guard let n = Int(value) else {
                throw ConfigurationError("\(origin): max-cars-per-address needs a whole number, got '\(value)'")
            }
            config.maxCarsPerAddress = n
        case "max-pending-connections":
            guard let n = Int(value) else {
                throw ConfigurationError("\(origin): max-pending-connections needs a whole number, got '\(value)'")
            }
            config.maxPendingConnections = n
        case "max-pending-per-address":
            guard let n = Int(value) else {
                throw ConfigurationError("\(origin): max-pending-per-address needs a whole number, got '\(value)'")
            }
            config.maxPendingPerAddress = n
        case "handshake-timeout": config.handshakeTimeoutSeconds = try number(value)
        case "idle-timeout": config.idleTimeoutSeconds = try number(value)
        case "write-stall-timeout": config.writeStallTimeoutSeconds = try number(value)
        case "record-dir": config.recordDirectory = value
        case "no-audio": config.audio = !["true", "yes", "1"].contains(value)
        default:
            if try config.session.apply(key: key, value: value, origin: origin) { return }
            if try applyUSB(key: key, value: value, to: &config, origin: origin) { return }
            // A row in serveOptions without a case here: a programming error, caught by the tests.
            throw ConfigurationError("\(origin): option '\(key)' is in the table but not applied")
        }
    }
}
