import Foundation
import DashportLog

/// Applies `key = value` settings (from a config file or from `--key value` options) to a
/// ``ServerConfiguration``. The keys are the long option names of `dashport serve`.
public enum ConfigurationParser {
    /// Every key, with the help text `dashport serve --help` prints.
    public static let options: [(key: String, argument: String, help: String)] = [
        ("listen", "HOST:PORT", "address to listen on (default 127.0.0.1:5277; port 0 = any free port, printed on start)"),
        ("state-dir", "DIR", "server key/certificate, caches and session (default $XDG_STATE_HOME/dashport)"),
        ("catalog", "FILE", "browse catalog JSON (default: the embedded demo library)"),
        ("config", "FILE", "read these options from FILE (`key = value` lines, # comments)"),
        ("log-level", "LEVEL", "trace, debug, info (default), notice, warning or error"),
        ("allow-fingerprint", "SHA256", "allow a head unit by its certificate's SHA-256 (repeatable)"),
        ("ca-file", "FILE", "allow head units whose certificate chains to a CA in FILE (PEM)"),
        ("label", "TEXT", "label the car shows for this phone (default Dashport)"),
        ("device-name", "TEXT", "device name sent in service discovery"),
        ("max-connections", "N", "connections served at once (default 256)"),
        ("handshake-timeout", "SECONDS", "time a car has to finish the handshake (default 10)"),
        ("write-stall-timeout", "SECONDS", "time a car may leave our answers unread before it is closed (default 15)"),
        ("idle-timeout", "SECONDS", "close a car silent this long once linked (default 0 = never)"),
    ]

    /// Sets one key. `origin` names where it came from, for the error message.
    public static func apply(key: String, value: String, to config: inout ServerConfiguration, origin: String) throws(ConfigurationError) {
        func number(_ text: String) throws(ConfigurationError) -> Double {
            guard let v = Double(text), v.isFinite else { throw ConfigurationError("\(origin): \(key) needs a number, got '\(text)'") }
            return v
        }
        switch key {
        case "listen": config.listen = value
        case "state-dir": config.stateDirectory = value
        case "catalog": config.catalog = value
        case "log-level":
            guard let level = LogLevel(name: value) else {
                throw ConfigurationError("\(origin): log-level must be one of trace, debug, info, notice, warning, error; got '\(value)'")
            }
            config.logLevel = level
        case "allow-fingerprint": config.allowedFingerprints.append(value)
        case "ca-file": config.caFile = value
        case "label": config.label = value
        case "device-name": config.deviceName = value
        case "max-connections":
            guard let n = Int(value) else { throw ConfigurationError("\(origin): max-connections needs a whole number, got '\(value)'") }
            config.maxConnections = n
        case "handshake-timeout": config.handshakeTimeoutSeconds = try number(value)
        case "idle-timeout": config.idleTimeoutSeconds = try number(value)
        case "write-stall-timeout": config.writeStallTimeoutSeconds = try number(value)
        default:
            throw ConfigurationError("\(origin): unknown option '\(key)' (see dashport serve --help)")
        }
    }

    /// Parses a config file's text: `key = value` per line, `#` starts a comment, blank lines ignored.
    public static func applyFile(text: String, path: String, to config: inout ServerConfiguration) throws(ConfigurationError) {
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            guard let eq = trimmed.firstIndex(of: "=") else {
                throw ConfigurationError("\(path):\(index + 1): expected 'key = value', got '\(trimmed)'")
            }
            let key = trimmed[..<eq].trimmingCharacters(in: .whitespaces)
            let value = trimmed[trimmed.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            if key == "config" { throw ConfigurationError("\(path):\(index + 1): a config file cannot include another") }
            try apply(key: key, value: unquote(value), to: &config, origin: "\(path):\(index + 1)")
        }
    }

    /// Parses `serve`'s arguments (`--key value` or `--key=value`), reading `--config FILE` first
    /// wherever it appears so that the command line wins over the file.
    public static func parse(arguments: [String], readFile: (String) throws -> String = { try String(contentsOfFile: $0, encoding: .utf8) }) throws(ConfigurationError) -> ServerConfiguration {
        var pairs: [(String, String)] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw ConfigurationError("unexpected argument '\(argument)' (see dashport serve --help)")
            }
            let body = argument.dropFirst(2)
            if let eq = body.firstIndex(of: "=") {
                pairs.append((String(body[..<eq]), String(body[body.index(after: eq)...])))
            } else {
                guard index + 1 < arguments.count else { throw ConfigurationError("--\(body) needs a value") }
                pairs.append((String(body), arguments[index + 1]))
                index += 1
            }
            index += 1
        }
        var config = ServerConfiguration()
        for (key, path) in pairs where key == "config" {
            let text: String
            do { text = try readFile(path) } catch {
                throw ConfigurationError("--config \(path): cannot read it (\(error.localizedDescription))")
            }
            try applyFile(text: text, path: path, to: &config)
        }
        for (key, value) in pairs where key != "config" {
            try apply(key: key, value: value, to: &config, origin: "--\(key)")
        }
        return config
    }

    private static func unquote(_ value: String) -> String {
        if value.count >= 2, let first = value.first, first == value.last, first == "\"" || first == "'" {
            return String(value.dropFirst().dropLast())
        }
        return value
    }
}
