import Testing
import DashportCommandLine
import DashportLog
import DashportTransport
@testable import DashportServer

@Suite("Server configuration")
struct ConfigurationTests {
    @Test func defaultsAreSafe() throws {
        let config = try ConfigurationParser.parse(arguments: [])
        #expect(config.listen == "127.0.0.1:5277")
        #expect(config.listensOnLoopback)
        #expect(config.idleTimeoutSeconds == 0)
        try config.validate()
    }

    @Test func commandLineOptionsInBothForms() throws {
        let config = try ConfigurationParser.parse(arguments: [
            "--listen", "127.0.0.1:0", "--state-dir=/tmp/x", "--log-level", "debug",
            "--allow-fingerprint", String(repeating: "ab", count: 32),
        ])
        #expect(config.listen == "127.0.0.1:0")
        #expect(config.stateDirectory == "/tmp/x")
        #expect(config.logLevel == .debug)
        #expect(config.allowedFingerprints.count == 1)
    }

    @Test func configFileIsReadAndTheCommandLineWins() throws {
        let file = """
            # a comment
            listen = 127.0.0.2:6000   # trailing comment
            log-level = warning
            label = "My Car Phone"

            allow-fingerprint = \(String(repeating: "01", count: 32))
            """
        let config = try ConfigurationParser.parse(
            arguments: ["--log-level", "error", "--config", "dash.conf"],
            readFile: { path in
                #expect(path == "dash.conf")
                return file
            })
        #expect(config.listen == "127.0.0.2:6000")
        #expect(config.logLevel == .error)
        #expect(config.label == "My Car Phone")
        #expect(config.allowedFingerprints == [String(repeating: "01", count: 32)])
    }

    @Test func errorsNameTheFileLineAndOption() {
        #expect(throws: ConfigurationError("dash.conf:2: unknown option 'colour' (see dashport serve --help)")) {
            try ConfigurationParser.parse(arguments: ["--config", "dash.conf"], readFile: { _ in "listen = 127.0.0.1:1\ncolour = red" })
        }
        #expect(throws: ConfigurationError("dash.conf:1: expected 'name = value', got 'listen'")) {
            try ConfigurationParser.parse(arguments: ["--config", "dash.conf"], readFile: { _ in "listen" })
        }
        #expect(throws: ConfigurationError.self) { try ConfigurationParser.parse(arguments: ["--log-level", "loud"]) }
        #expect(throws: ConfigurationError("--listen needs a value (HOST:PORT)")) { try ConfigurationParser.parse(arguments: ["--listen"]) }
        #expect(throws: ConfigurationError("unexpected argument serve-now (see dashport serve --help)")) {
            try ConfigurationParser.parse(arguments: ["serve-now"])
        }
        #expect(throws: ConfigurationError("dash.conf:1: a config file cannot include another")) {
            try ConfigurationParser.parse(arguments: ["--config", "dash.conf"], readFile: { _ in "config = other.conf" })
        }
        #expect(throws: ConfigurationError.self) { try ConfigurationParser.parse(arguments: ["--max-connections", "many"]) }
    }

    /// `--reactors`: one per core by default (at most the cap), any count from 1 to the cap.
    @Test func reactorsDefaultToTheCoresAndStayWithinTheCap() throws {
        let defaults = try ConfigurationParser.parse(arguments: [])
        #expect(defaults.reactors == EventLoop.defaultReactorCount)
        #expect(defaults.reactors >= 1 && defaults.reactors <= EventLoop.maxReactors)
        let three = try ConfigurationParser.parse(arguments: ["--reactors", "3"])
        #expect(three.reactors == 3)
        try three.validate()
        #expect(try ConfigurationParser.parse(arguments: ["--config", "d.conf"], readFile: { _ in "reactors = 1" }).reactors == 1)
        for refused in ["0", "\(EventLoop.maxReactors + 1)"] {
            #expect(throws: ConfigurationError("--reactors must be from 1 to \(EventLoop.maxReactors)")) {
                try ConfigurationParser.parse(arguments: ["--reactors", refused]).validate()
            }
        }
        #expect(throws: ConfigurationError.self) { try ConfigurationParser.parse(arguments: ["--reactors", "all"]) }
    }

    /// Issue 12: `serve --bogus` said "--bogus needs a value".
    @Test func anUnknownOptionIsNamedAsUnknown() {
        #expect(throws: ConfigurationError("unknown option --bogus (see dashport serve --help)")) {
            try ConfigurationParser.parse(arguments: ["--bogus"])
        }
        #expect(throws: ConfigurationError("unknown option --listen (see dashport fingerprint --help)")) {
            try ConfigurationParser.parse(arguments: ["--listen", "127.0.0.1:1"], as: ConfigurationParser.fingerprint)
        }
    }

    /// Issue 12: `--listen nonsense` complained about a missing allowlist.
    @Test func aListenAddressWithoutAPortSaysSoBeforeAnyAllowlist() throws {
        let config = try ConfigurationParser.parse(arguments: ["--listen", "nonsense"])
        #expect(throws: ConfigurationError("--listen \"nonsense\": missing port, expected HOST:PORT or [IPv6]:PORT")) {
            try config.validate()
        }
        let badPort = try ConfigurationParser.parse(arguments: ["--listen", "0.0.0.0:http"])
        #expect(throws: ConfigurationError("--listen \"http\": the port is not a number")) { try badPort.validate() }
    }

    /// Every row of the table is applied (a row without a case would throw) and shows in --help.
    @Test func everyOptionInTheTableIsAppliedAndDocumented() throws {
        for option in ConfigurationParser.serveOptions where option.name != "config" {
            var config = ServerConfiguration()
            let value = ["log-level": "debug", "remote-volume": "absolute", "usb-mode": "direct"][option.name] ?? "1"
            try ConfigurationParser.apply(OptionAssignment(name: option.name, value: value, origin: "test"), to: &config)
            #expect(config != ServerConfiguration(), "\(option.name) changed nothing")
            #expect(ConfigurationParser.serve.help.contains("  --\(option.name) "))
        }
        #expect(ConfigurationParser.fingerprint.options.map(\.name) == ["state-dir", "config"])
    }

    @Test(arguments: ["0.0.0.0:5277", "192.0.2.7:5277", "[2001:db8::1]:5277"])
    func nonLoopbackNeedsAnAllowlist(address: String) throws {
        var config = ServerConfiguration()
        config.listen = address
        #expect(!config.listensOnLoopback)
        #expect(throws: ConfigurationError.self) { try config.validate() }
        config.allowedFingerprints = [String(repeating: "AB:", count: 31) + "AB"]
        try config.validate()
    }

    @Test(arguments: ["127.0.0.1:5277", "127.8.9.1:1", "[::1]:5277", "localhost:5277"])
    func loopbackNeedsNoAllowlist(address: String) throws {
        var config = ServerConfiguration()
        config.listen = address
        #expect(config.listensOnLoopback)
        try config.validate()
    }

    @Test func fingerprintsAreNormalised() {
        #expect(ServerConfiguration.normalizedFingerprint(String(repeating: "AB:", count: 31) + "AB") == String(repeating: "ab", count: 32))
        #expect(ServerConfiguration.normalizedFingerprint("abcd") == nil)
        #expect(ServerConfiguration.normalizedFingerprint(String(repeating: "zz", count: 32)) == nil)
    }

    @Test func badLimitsAreRefused() {
        var config = ServerConfiguration()
        config.maxConnections = 0
        #expect(throws: ConfigurationError.self) { try config.validate() }
        config = ServerConfiguration()
        config.handshakeTimeoutSeconds = 0
        #expect(throws: ConfigurationError.self) { try config.validate() }
        config = ServerConfiguration()
        config.idleTimeoutSeconds = -1
        #expect(throws: ConfigurationError.self) { try config.validate() }
    }

    @Test func stateDirectoryFollowsXDG() {
        #expect(ServerConfiguration.defaultStateDirectory(environment: ["XDG_STATE_HOME": "/x", "HOME": "/h"]) == "/x/dashport")
        #expect(ServerConfiguration.defaultStateDirectory(environment: ["HOME": "/h"]) == "/h/.local/state/dashport")
    }
}
