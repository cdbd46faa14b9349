import DashportThread
import Dispatch
import Synchronization

/// Runs a test's CPU-heavy body on a thread of the test process's own instead of the cooperative pool.
///
/// Swift Testing runs every test's tasks on the cooperative pool: one thread per core, two on the CI
/// machine. A test that spends seconds of CPU there (a 100,000-item catalog built and searched, a
/// million fixture splits) holds a pool thread all that time, and two of them stop every other
/// test of the process: their cars' links, timers and waits stall together, and at load they time
/// out together. Inside `offThePool`, the body's nonisolated code and the default actors it calls
/// run on one dedicated thread (`withTaskExecutorPreference`), so at most that thread is busy:
/// the pool stays free for the other tests. Heavy tests queue behind each other there, by design.
public func offThePool<T, Failure: Error>(_ body: () async throws(Failure) -> T) async throws(Failure) -> T {
    try await withTaskExecutorPreference(HeavyWorkExecutor.shared, operation: body)
}

/// A task executor with one thread: jobs run in the order they were queued.
final class HeavyWorkExecutor: TaskExecutor {
    static let shared = HeavyWorkExecutor(name: "heavy-tests")

    private let jobs = Mutex<[UnownedJob]>([])
    private let ready = DispatchSemaphore(value: 0)

    private init(name: String) {
        OSThread.start(name: name) { [self] in
            while true {
                ready.wait()
                let job = jobs.withLock { $0.removeFirst() }
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        ready.signal()
    }
}
