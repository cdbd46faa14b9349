@testable import dashport_hu
@testable import dashport_bench_link
import DashportCommandLine
import Testing
import DashportTransport
import DashportHeadUnit
import DashportLink

/// Each tool's option table, through the shared parser: what its options mean, and that its
/// mistakes are reported as the parser words them.
@Suite struct EmulatorTableTests {
    @Test func browseReadsItsWholeTable() throws {
        let arguments = try Arguments(
            [
                "127.0.0.1:5277", "--max-tabs", "3", "--legacy", "--page-size=20", "--timeout", "2.5", "--version", "1.7",
                "--save-art", "/tmp/covers", "--log-level", "debug",
            ],
            spec: BrowseCommand.spec)
        #expect(try arguments.address().description == "127.0.0.1:5277")
        #expect(try arguments.count("max-tabs") == 3)
        #expect(arguments.flag("legacy"))
        #expect(!arguments.flag("full"))
        #expect(try arguments.count("page-size") == 20)
        #expect(try arguments.seconds("timeout", default: .seconds(5)) == .milliseconds(2500))
        #expect(try arguments.version(default: .init(major: 1, minor: 6)) == .init(major: 1, minor: 7))
        #expect(arguments.string("save-art") == "/tmp/covers")
        #expect(BrowseCommand.spec.help.contains("  --max-tabs N "))
    }

    @Test(arguments: [
        (["--bogus"], "unknown option --bogus (see dashport-hu browse --help)"),
        (["h:1", "--max-tabs"], "--max-tabs needs a value (N)"),
        (["h:1", "--legacy=1"], "--legacy takes no value"),
        (["a:1", "b:2"], "unexpected argument b:2 (see dashport-hu browse --help)"),
    ])
    func browseMistakes(arguments: [String], message: String) {
        #expect(throws: UsageError.self) { try Arguments(arguments, spec: BrowseCommand.spec) }
        do {
            _ = try Arguments(arguments, spec: BrowseCommand.spec)
        } catch {
            #expect(error.description == message)
        }
    }

    /// The media audio sink's options: defaults like openauto, the DHU's window, ackless, focus modes.
    @Test func browseAudioOptionsBuildTheSinkAndTheCar() throws {
        let plain = try #require(try BrowseCommand.parse(try Arguments(["127.0.0.1:1"], spec: BrowseCommand.spec)))
        #expect(plain.configuration.car.mediaAudioSink?.channel == 4)
        #expect(plain.configuration.audio?.window == 1 && plain.configuration.audio?.sendsAcks == true)
        #expect(plain.configuration.audio?.focus == .openauto)
        #expect(plain.saveAudio == nil && !plain.playAudio)

        let dhu = try #require(
            try BrowseCommand.parse(
                try Arguments(
                    [
                        "127.0.0.1:1", "--audio-window", "4096", "--ackless", "--focus-loss-after", "2", "--focus-regain-after", "1.5",
                        "--save-audio", "/tmp/a.wav", "--play-audio",
                    ],
                    spec: BrowseCommand.spec)))
        #expect(dhu.configuration.audio?.window == 4096 && dhu.configuration.audio?.sendsAcks == false)
        #expect(dhu.configuration.audio?.focus == .unsolicitedLoss(after: .seconds(2), regainAfter: .milliseconds(1500)))
        #expect(dhu.saveAudio == "/tmp/a.wav" && dhu.playAudio)

        let silent = try #require(
            try BrowseCommand.parse(try Arguments(["127.0.0.1:1", "--no-audio", "--focus", "ohu"], spec: BrowseCommand.spec)))
        #expect(silent.configuration.car.mediaAudioSink == nil)
        #expect(silent.configuration.audio?.focus == .unsolicitedGainAfterSetup)

        for bad in [
            ["--focus", "rude"], ["--focus-regain-after", "1"], ["--audio-window", "0"], ["--focus", "ohu", "--focus-loss-after", "1"],
        ] {
            #expect(throws: UsageError.self) { try BrowseCommand.parse(try Arguments(["127.0.0.1:1"] + bad, spec: BrowseCommand.spec)) }
        }
    }

    @Test func connectReadsItsTableAndTypedValuesAreChecked() throws {
        let arguments = try Arguments(["[::1]:1", "--encrypted-control", "--no-ping-answers", "--timeout", "0"], spec: ConnectCommand.spec)
        #expect(try arguments.address().description == "[::1]:1")
        #expect(arguments.flag("encrypted-control"))
        #expect(arguments.flag("no-ping-answers"))
        #expect(throws: UsageError.self) { try arguments.seconds("timeout", default: .seconds(10)) }
        #expect(throws: UsageError.self) { try Arguments([], spec: ConnectCommand.spec).address() }
        #expect(throws: UsageError.self) { try Arguments(["--max-tabs", "3"], spec: ConnectCommand.spec) }
    }
}

@Suite struct LinkBenchTableTests {
    @Test func everyOptionLandsInOptions() throws {
        let parsed = try ParsedCommand.parse(
            [
                "--connects", "5", "--restarts", "0", "--rounds", "2", "--seconds", "0.5", "--depth", "8", "--cars", "3",
                "--many-depth", "2", "--memory-cars", "4", "--memory-waves", "3", "--dashport", "/bin/true", "--skip-memory",
                "--only-memory",
            ],
            as: Options.spec)
        let options = try Options(parsed)
        #expect(options.connects == 5)
        #expect(options.restarts == 0)
        #expect(options.rounds == 2)
        #expect(options.seconds == 0.5)
        #expect(options.depth == 8)
        #expect(options.cars == 3)
        #expect(options.manyDepth == 2)
        #expect(options.memoryCars == 4)
        #expect(options.dashport == "/bin/true")
        #expect(options.skipMemory)
        #expect(options.memoryWaves == 3)
        #expect(options.onlyMemory)
        let defaults = try Options(ParsedCommand.parse([], as: Options.spec))
        #expect(defaults.connects == 30 && defaults.seconds == 2 && !defaults.skipMemory && defaults.dashport == nil)
        #expect(defaults.memoryWaves == 2 && !defaults.onlyMemory)
    }

    @Test func outOfRangeValuesAreRefused() throws {
        #expect(throws: CommandLineError("--connects: \"0\" is not a whole number of at least 1")) {
            try Options(ParsedCommand.parse(["--connects", "0"], as: Options.spec))
        }
        #expect(throws: CommandLineError("--seconds: \"601\" is not a number from 0.001 to 600")) {
            try Options(ParsedCommand.parse(["--seconds", "601"], as: Options.spec))
        }
    }
}
