import Glibc

extension ParsedCommand {
    /// For a tool whose whole command line is one spec (the benchmarks): parses the arguments and
    /// hands them to `read`. On `--help` prints the usage and exits 0; on a bad option or value
    /// prints "program: what was wrong" and the usage on standard error and exits 2.
    public static func parseOrExit<Options>(
        program: String, as spec: CommandSpec, arguments: [String] = Array(CommandLine.arguments.dropFirst()),
        _ read: (ParsedCommand) throws(CommandLineError) -> Options
    ) -> Options {
        do {
            let parsed = try ParsedCommand.parse(arguments, as: spec)
            if parsed.wantsHelp {
                print(spec.help)
                exit(0)
            }
            return try read(parsed)
        } catch {
            let text = "\(program): \(error)\n\n\(spec.help)\n"
            // One write of a short text to standard error (stdio's `stderr` is not concurrency-safe).
            _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
            exit(2)
        }
    }
}
