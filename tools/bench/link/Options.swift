import DashportCommandLine
import DashportLog
import DashportTransport
import Foundation

/// What `dashport-bench-link` runs; every phase is bounded in count and in time.
struct Options {
    /// Connects per method in the latency phase (interleaved).
    var connects = 30
    /// Connects per method against a server restarted each time (the browse cache read from disk).
    var restarts = 10
    /// Rounds of the throughput phase; each method runs once per round.
    var rounds = 3
    /// Length of one throughput run.
    var seconds = 2.0
    /// Requests in flight on the single connection (the media channel allows 32).
    var depth = 32
    /// Connections in the many-connection run, each with ``manyDepth`` requests in flight.
    var cars = 50
    var manyDepth = 1
    /// Cars connected to the `dashport serve` process in the memory phase.
    var memoryCars = 200
    /// Waves of ``memoryCars`` cars, each connected after the one before left (at least 2).
    var memoryWaves = 2
    /// The `dashport` executable for the memory phase; default: next to this benchmark.
    var dashport: String?
    var skipMemory = false
    /// Only the memory phase (no in-process server, connects or throughput).
    var onlyMemory = false
    /// Length of the hostile phase's window beside a flooder and a never-reader; past the
    /// server's 15-s write-stall limit so the never-reader's close falls inside it.
    var hostileSeconds = 25
    var skipHostile = false
    /// Profiling driver: connect ``memoryCars`` cars to a server started elsewhere (under a
    /// heap profiler, say) and hold them until ``holdUntil`` exists, then leave.
    var hold: String?
    var holdUntil: String?
    /// Only the hostile phase (a fresh in-process server; no connects, throughput or memory).
    var onlyHostile = false
    /// The in-process server's log level, its lines on standard error; nil: warnings and errors
    /// only, discarded.
    var serverLog: LogLevel?
    /// Reactors of the in-process server and of the raw TCP reference (`--reactors`); nil: the
    /// server's default, one per core.
    var reactors: Int?
    /// The in-process servers' catalog (`--catalog`); nil: the embedded demo library. With the
    /// 100,000-item maximum (`dashport-bench-search --write-catalog`), the hostile phase's search
    /// flooder searches it beside the good cars' browsing (issue 22 item 3).
    var catalog: String?

    /// The reactors the in-process server and the raw TCP reference run.
    var reactorCount: Int { reactors ?? EventLoop.defaultReactorCount }

    static let spec = CommandSpec(
        name: "dashport-bench-link",
        summary: "What a car's link costs, next to references measured in the same run.",
        options: [
            .value("connects", "N", "connects per method, warm cache (default 30)"),
            .value("restarts", "N", "connects per method after a server restart (default 10)"),
            .value("rounds", "N", "throughput rounds; methods alternate within each (default 3)"),
            .value("seconds", "S", "length of one throughput run (default 2)"),
            .value("depth", "N", "requests in flight on one connection (default 32, the channel's cap)"),
            .value("cars", "N", "connections in the many-connection run (default 50)"),
            .value("many-depth", "N", "requests in flight per connection there (default 1)"),
            .value("memory-cars", "N", "cars connected to `dashport serve` in the memory phase (default 200)"),
            .value("memory-waves", "N", "waves of those cars, each after the one before left (default 2)"),
            .value("dashport", "PATH", "the dashport executable (default: next to this one)"),
            .flag("skip-memory", "leave the memory phase out"),
            .flag("only-memory", "run the memory phase alone"),
            .value("hostile-seconds", "N", "the hostile phase's window beside a flooder and a never-reader (default 25)"),
            .flag("skip-hostile", "leave the hostile phase out"),
            .value(
                "hold", "ADDRESS",
                "profiling driver: connect --memory-cars cars to a server already listening there, hold them, run nothing else"),
            .value("hold-until", "FILE", "with --hold: leave once FILE exists (default: after 60 s)"),
            .flag("only-hostile", "run the hostile phase alone (no connects, throughput or memory)"),
            .value("server-log", "LEVEL", "the in-process server's log on standard error from LEVEL up (default: none)"),
            .value(
                "reactors", "N",
                "reactors of the in-process server, and of the raw TCP reference (default: the server's, one per core)"),
            .value("catalog", "PATH", "the in-process servers' catalog (default: the embedded demo library)"),
        ],
        epilogue: "Build the server first for the memory phase: swift build -c release --product dashport")

    /// Reads the parsed command line; throws on a value out of range.
    init(_ parsed: ParsedCommand) throws(CommandLineError) {
        connects = try parsed.integer("connects") ?? connects
        restarts = try parsed.integer("restarts", minimum: 0) ?? restarts
        rounds = try parsed.integer("rounds") ?? rounds
        seconds = try parsed.number("seconds", in: 0.001...600) ?? seconds
        depth = try parsed.integer("depth") ?? depth
        cars = try parsed.integer("cars") ?? cars
        manyDepth = try parsed.integer("many-depth") ?? manyDepth
        memoryCars = try parsed.integer("memory-cars") ?? memoryCars
        memoryWaves = try parsed.integer("memory-waves", minimum: 2) ?? memoryWaves
        dashport = parsed.value("dashport")
        skipMemory = parsed.flag("skip-memory")
        onlyMemory = parsed.flag("only-memory")
        hostileSeconds = try parsed.integer("hostile-seconds") ?? hostileSeconds
        skipHostile = parsed.flag("skip-hostile")
        hold = parsed.value("hold")
        holdUntil = parsed.value("hold-until")
        onlyHostile = parsed.flag("only-hostile")
        reactors = try parsed.integer("reactors", minimum: 1)
        catalog = parsed.value("catalog")
        if let reactors, reactors > EventLoop.maxReactors {
            throw CommandLineError("--reactors \(reactors): at most \(EventLoop.maxReactors)")
        }
        if let name = parsed.value("server-log") {
            guard let level = LogLevel(name: name) else {
                throw CommandLineError("--server-log \(name): not a log level (trace, debug, info, notice, warning, error)")
            }
            serverLog = level
        }
    }

    init() {}

    /// Parses the command line; prints the usage and exits on `--help` or a bad option.
    static func parse(_ arguments: [String]) -> Options {
        ParsedCommand.parseOrExit(program: "dashport-bench-link", as: spec, arguments: arguments) { parsed throws(CommandLineError) in
            try Options(parsed)
        }
    }
}

/// Progress on standard error, so standard output is only the report.
func progress(_ message: String) {
    FileHandle.standardError.write(Data("· \(message)\n".utf8))
}
