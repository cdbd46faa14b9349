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
    /// The `dashport` executable for the memory phase; default: next to this benchmark.
    var dashport: String?
    var skipMemory = false

    static let usage = """
        usage: dashport-bench-link [options]

          --connects N       connects per method, warm cache (default 30)
          --restarts N       connects per method after a server restart (default 10)
          --rounds N         throughput rounds; methods alternate within each (default 3)
          --seconds S        length of one throughput run (default 2)
          --depth N          requests in flight on one connection (default 32, the channel's cap)
          --cars N           connections in the many-connection run (default 50)
          --many-depth N     requests in flight per connection there (default 1)
          --memory-cars N    cars connected to `dashport serve` in the memory phase (default 200)
          --dashport PATH    the dashport executable (default: next to this one)
          --skip-memory      leave the memory phase out

        Build the server first for the memory phase: swift build -c release --product dashport
        """

    /// Parses the command line; prints the usage and exits on `--help` or a bad option.
    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var rest = arguments[...]
        func value(_ name: String) -> String {
            guard let next = rest.popFirst() else { fail("\(name) needs a value") }
            return next
        }
        func count(_ name: String, minimum: Int = 1) -> Int {
            let text = value(name)
            guard let number = Int(text), number >= minimum else { fail("\(name) \(text): not a whole number ≥ \(minimum)") }
            return number
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--connects": options.connects = count(argument)
            case "--restarts": options.restarts = count(argument, minimum: 0)
            case "--rounds": options.rounds = count(argument)
            case "--seconds":
                let text = value(argument)
                guard let seconds = Double(text), seconds > 0, seconds <= 600 else { fail("--seconds \(text): 0 < S ≤ 600") }
                options.seconds = seconds
            case "--depth": options.depth = count(argument)
            case "--cars": options.cars = count(argument)
            case "--many-depth": options.manyDepth = count(argument)
            case "--memory-cars": options.memoryCars = count(argument)
            case "--dashport": options.dashport = value(argument)
            case "--skip-memory": options.skipMemory = true
            case "--help", "-h":
                print(usage)
                exit(0)
            default: fail("unknown option \(argument)")
            }
        }
        return options
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("dashport-bench-link: \(message)\n\n\(usage)\n".utf8))
        exit(2)
    }
}

/// Progress on standard error, so standard output is only the report.
func progress(_ message: String) {
    FileHandle.standardError.write(Data("· \(message)\n".utf8))
}
