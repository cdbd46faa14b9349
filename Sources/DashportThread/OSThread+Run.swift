/// Work that blocks or burns CPU for long, run on a thread of its own and awaited.
///
/// Swift's cooperative pool has one thread per core (two on a small Pi or CI machine). A key
/// generation, a large catalog's load or a child process's wait on one of them stops every other
/// task of the process for as long as it takes: the cars' links and timers, and under a loaded
/// machine for seconds. `run` moves such work to a detached thread (as ``OSThread/start(name:_:)``
/// starts) and suspends the caller instead of holding its pool thread.
extension OSThread {
    /// Runs `work` on a new thread named `name` and returns what it returned, or throws what it threw.
    public static func run<Value: Sendable, Failure: Error>(
        name: String, _ work: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
            start(name: name) { continuation.resume(returning: Result { () throws(Failure) in try work() }) }
        }
        return try result.get()
    }
}
