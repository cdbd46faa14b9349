import DashportCommandLine
import Foundation

/// What `dashport-bench-audio` runs; every phase is bounded in count and in time.
struct Options: Sendable {
    /// Cars streaming at once from the one server.
    var cars = 100
    /// Length of the streaming window (CPU, underflows, pacing alone, memory); `--minutes` sets it
    /// for the long run.
    var seconds = 60.0
    /// Cars browsing at full rate (GET_CHILDREN, one in flight each) beside the stream.
    var browsers = 50
    var browseSeconds = 10.0
    /// PAUSE → STOP and PLAY → first DATA samples (each at every car).
    var samples = 5
    /// Length of the reference run.
    var referenceSeconds = 15.0
    /// Each car's window (CONFIG `max_unacked`): 1 as openauto and headunit, 4096 as Google's DHU.
    var window = 1
    /// Cars that send no ACKs (protocol ≥ 5.0 head units): the server streams to them without
    /// waiting for any once its 2-s grace after START has passed.
    var ackless = false
    /// The `dashport` executable for the server-alone memory phase; default: next to this benchmark.
    var dashport: String?
    /// Niceness of the benchmark's own car threads (the streaming and the browsing cars' reactors):
    /// they stand for head units on other machines, so by default they yield the shared cores to
    /// the server's reactors instead of taking turns with them (0 leaves them at the server's).
    var carNice = 10
    var skipChild = false
    /// Streaming time of the child server in that phase.
    var childSeconds = 10.0
    /// RSS samples taken during the streaming window.
    var memorySamples = 10

    static let spec = CommandSpec(
        name: "dashport-bench-audio",
        summary: "What streaming media audio to many cars costs the server, next to a reference measured in the same run.",
        options: [
            .value("cars", "N", "cars streaming at once (default 100)"),
            .value("seconds", "S", "length of the streaming window (default 60)"),
            .value("minutes", "M", "the long run: a streaming window of M minutes (try --minutes 10 --cars 20)"),
            .value("browsers", "N", "cars browsing at full rate beside the stream in the pacing phase (default 50; 0 leaves it out)"),
            .value("browse-seconds", "S", "length of the browsing phase (default 10)"),
            .value("samples", "N", "PAUSE → STOP and PLAY → first DATA samples (default 5)"),
            .value("reference-seconds", "S", "length of the write-only reference run (default 15)"),
            .value("window", "N", "each car's max_unacked (default 1, as openauto; 4096 as Google's DHU)"),
            .flag("ackless", "cars send no ACKs (the server streams without them after its 2-s grace)"),
            .value("dashport", "PATH", "the dashport executable for the server-alone memory phase (default: next to this one)"),
            .value("car-nice", "N", "niceness of the benchmark's car threads, 0–19 (default 10: the cars stand for other machines)"),
            .flag("skip-child", "leave out the server-alone memory phase (a `dashport serve` child process)"),
            .value("child-seconds", "S", "streaming time of that child server (default 10)"),
            .value("memory-samples", "N", "RSS samples across the streaming window (default 10)"),
        ],
        epilogue:
            "Release build, with the server for the server-alone phase: swift build -c release --product dashport && swift run -c release dashport-bench-audio"
    )

    /// Reads the parsed command line; throws on a value out of range.
    init(_ parsed: ParsedCommand) throws(CommandLineError) {
        cars = try parsed.integer("cars") ?? cars
        seconds = try parsed.number("seconds", in: 0.5...3600) ?? seconds
        if let minutes = try parsed.number("minutes", in: 0.1...600) { seconds = minutes * 60 }
        browsers = try parsed.integer("browsers", minimum: 0) ?? browsers
        browseSeconds = try parsed.number("browse-seconds", in: 0.5...600) ?? browseSeconds
        samples = try parsed.integer("samples") ?? samples
        referenceSeconds = try parsed.number("reference-seconds", in: 0.5...600) ?? referenceSeconds
        window = try parsed.integer("window") ?? window
        memorySamples = try parsed.integer("memory-samples", minimum: 2) ?? memorySamples
        ackless = parsed.flag("ackless")
        dashport = parsed.value("dashport")
        skipChild = parsed.flag("skip-child")
        carNice = try parsed.integer("car-nice", minimum: 0) ?? carNice
        childSeconds = try parsed.number("child-seconds", in: 1...600) ?? childSeconds
    }

    init() {}

    /// Parses the command line; prints the usage and exits on `--help` or a bad option.
    static func parse(_ arguments: [String]) -> Options {
        ParsedCommand.parseOrExit(program: "dashport-bench-audio", as: spec, arguments: arguments) { parsed throws(CommandLineError) in
            try Options(parsed)
        }
    }
}

/// Progress on standard error, so standard output is only the report.
func progress(_ message: String) {
    FileHandle.standardError.write(Data("· \(message)\n".utf8))
}
