// Where the fuzz drivers report a broken invariant: the one switch between the fuzz targets (trap,
// so libFuzzer keeps the input as a crash) and the replay tests (record an issue naming the input).
// DashportFuzzSupport holds only this and FuzzReader, so every driver library builds on it and a
// fuzz target links no driver but its own (tools/fuzz/README.md).

/// How a broken invariant is reported while a driver runs.
public enum FuzzInvariant {
    /// When set (task-local, by a replay test), a violation is handed to it; when `nil` (the fuzz
    /// targets), the process traps and libFuzzer saves the input.
    @TaskLocal public static var handler: (@Sendable (String) -> Void)?
}

/// A broken invariant.
package func fuzzViolation(_ message: String) {
    if let handler = FuzzInvariant.handler {
        handler(message)
    } else {
        fatalError("fuzz invariant: \(message)")
    }
}

package func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fuzzViolation(message()) }
}
