import DashportCommandLine
import Testing

@Suite struct ParserTests {
    static let spec = CommandSpec(
        name: "tool run", synopsis: "HOST:PORT [options]", summary: "Runs a thing.", positionals: ["HOST:PORT"],
        options: [
            .value("listen", "HOST:PORT", "where to listen"),
            .repeatable("allow", "SHA256", "an allowed fingerprint"),
            .flag("legacy", "legacy screens"),
        ],
        epilogue: "Example: tool run 127.0.0.1:1")

    func error(_ arguments: [String]) -> String {
        do {
            _ = try ParsedCommand.parse(arguments, as: Self.spec)
            return "no error"
        } catch {
            return error.description
        }
    }

    /// `dashport ctl status --state-dir X`: a command's own options may follow the words meant for
    /// someone else, and only its own (and --help) are taken; `--` ends them.
    @Test func separatingOptionsTakesOnlyTheCommandsOwnWherever() {
        let (options, rest) = Self.spec.separatingOptions(
            ["status", "--listen", "a:1", "--all", "--legacy", "x", "--allow=y", "-h", "--", "--listen", "z"])
        #expect(options == ["--listen", "a:1", "--legacy", "--allow=y", "-h"])
        #expect(rest == ["status", "--all", "x", "--listen", "z"])
        #expect(Self.spec.separatingOptions(["session", "--help"]) == (["--help"], ["session"]))
        #expect(Self.spec.separatingOptions(["invalidate", "--all"]) == ([], ["invalidate", "--all"]))
        #expect(Self.spec.separatingOptions(["cars", "--listen"]).options == ["--listen"])  // the parser reports the missing value
    }

    @Test func valuesFlagsRepeatsAndPositionals() throws {
        let parsed = try ParsedCommand.parse(
            ["--listen", "a:1", "--allow=x", "--legacy", "--allow", "y", "--", "--not-an-option"], as: Self.spec)
        #expect(parsed.value("listen") == "a:1")
        #expect(parsed.values("allow") == ["x", "y"])
        #expect(parsed.flag("legacy"))
        #expect(!parsed.wantsHelp)
        #expect(parsed.positionals == ["--not-an-option"])
        #expect(try ParsedCommand.parse([], as: Self.spec).value("listen") == nil)
        #expect(try ParsedCommand.parse(["--listen="], as: Self.spec).value("listen") == "")
    }

    @Test func everyErrorNamesItsProblem() {
        #expect(error(["--bogus"]) == "unknown option --bogus (see tool run --help)")
        #expect(error(["--bogus", "value"]) == "unknown option --bogus (see tool run --help)")
        #expect(error(["--bogus=1"]) == "unknown option --bogus (see tool run --help)")
        #expect(error(["-x"]) == "unknown option -x (see tool run --help)")
        #expect(error(["--listen"]) == "--listen needs a value (HOST:PORT)")
        #expect(error(["--legacy=yes"]) == "--legacy takes no value")
        #expect(error(["--listen", "a", "--listen", "b"]) == "--listen: listen given twice (first at --listen); it takes one value")
        #expect(error(["a", "b", "c"]) == "unexpected arguments b c (see tool run --help)")
    }

    @Test func helpIsAskedForAndGeneratedFromTheTable() throws {
        #expect(error(["--help", "--bogus"]) == "unknown option --bogus (see tool run --help)")
        #expect(try ParsedCommand.parse(["-h"], as: Self.spec).wantsHelp)
        #expect(try ParsedCommand.parse(["a", "b", "--help"], as: Self.spec).wantsHelp)
        let help = Self.spec.help
        #expect(help.hasPrefix("usage: tool run HOST:PORT [options]\n\nRuns a thing.\n\noptions:\n"))
        #expect(help.contains("  --listen HOST:PORT  where to listen\n"))
        #expect(help.contains("  --allow SHA256      an allowed fingerprint (repeatable)\n"))
        #expect(help.contains("  --legacy            legacy screens\n"))
        #expect(help.contains("  -h, --help          this text\n"))
        #expect(help.hasSuffix("\nExample: tool run 127.0.0.1:1\n"))
    }

    @Test func aConfigFileFillsTheSameTableAndTheCommandLineWins() throws {
        let text = """
            # comment
            listen = "file:1"   # trailing comment
            allow = a
            legacy = true

            """
        let parsed = try ParsedCommand.parse(["--listen", "cli:2", "--allow", "b"], as: Self.spec).merging(configFile: text, path: "f.conf")
        #expect(parsed.value("listen") == "cli:2")
        #expect(parsed.values("allow") == ["a", "b"])
        #expect(parsed.flag("legacy"))
        let fileOnly = try ParsedCommand.parse([], as: Self.spec).merging(configFile: "listen = 'x:1'\nlegacy = false", path: "f")
        #expect(fileOnly.value("listen") == "x:1")
        #expect(!fileOnly.flag("legacy"))
    }

    @Test func everyConfigFileErrorNamesFileAndLine() {
        func error(_ text: String) -> String {
            do {
                _ = try ParsedCommand.parse([], as: Self.spec).merging(configFile: text, path: "f.conf")
                return "no error"
            } catch {
                return error.description
            }
        }
        #expect(error("\nlisten") == "f.conf:2: expected 'name = value', got 'listen'")
        #expect(error("bogus = 1") == "f.conf:1: unknown option 'bogus' (see tool run --help)")
        #expect(error("legacy = yes") == "f.conf:1: legacy is a flag: true or false, got 'yes'")
        #expect(error("listen =") == "f.conf:1: listen needs a value (HOST:PORT)")
        #expect(error("listen = a\nlisten = b") == "f.conf:2: listen given twice (first at f.conf:1); it takes one value")
    }

    @Test func typedValuesRefuseWhatTheyCannotUse() throws {
        let spec = CommandSpec(name: "b", summary: "", options: [.value("n", "N", ""), .value("s", "S", "")])
        let good = try ParsedCommand.parse(["--n", "3", "--s", "2.5"], as: spec)
        #expect(try good.integer("n") == 3)
        #expect(try good.number("s", in: 0...600) == 2.5)
        #expect(try good.integer("missing") == nil)
        let bad = try ParsedCommand.parse(["--n", "0", "--s", "nan"], as: spec)
        #expect(throws: CommandLineError("--n: \"0\" is not a whole number of at least 1")) { try bad.integer("n") }
        #expect(throws: CommandLineError("--s: \"nan\" is not a number from 0 to 600")) { try bad.number("s", in: 0...600) }
    }

    @Test func subcommandsAreLookedUpAndAnUnknownOneIsNamed() throws {
        let set = CommandSet(
            program: "tool", summary: "Does things.",
            commands: [
                ("run", "HOST:PORT", "runs"), ("show", "", "shows"),
            ])
        #expect(try set.choose([]) == .help(topic: nil))
        #expect(try set.choose(["help", "run"]) == .help(topic: "run"))
        #expect(try set.choose(["--help"]) == .help(topic: nil))
        #expect(try set.choose(["run", "--x"]) == .command("run", arguments: ["--x"]))
        #expect(throws: CommandLineError("unknown command 'jump' (commands: run, show)")) { try set.choose(["jump"]) }
        #expect(set.help.contains("  run HOST:PORT   runs\n  show            shows\n"))
    }
}
