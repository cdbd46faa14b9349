import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A scratch directory, removed by the test.
struct Scratch {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-files-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    /// Makes a FIFO at `name`: opening it for reading blocks until a writer comes, forever here.
    func fifo(_ name: String) throws -> String {
        let fifo = file(name)
        guard mkfifo(fifo, 0o600) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        return fifo
    }
}

/// The call `work` made on a detached thread did not return: the blocking bug is back.
struct StillBlocked: Error, CustomStringConvertible {
    var description: String { "the call had not returned after the generous wait: it blocks" }
}

/// Runs `work` on its own detached thread and returns its result, or throws ``StillBlocked`` if it
/// has not returned after `wait` (generous: only a call that blocks for good gets near it). A
/// regression that makes `work` block therefore fails the test instead of hanging the suite; the
/// stuck thread is abandoned, and unblocked by `release` (for a FIFO: opening its write end) so it
/// does not outlive the test process's interest in it.
func finishesOnAThread<T: Sendable>(
    wait: Duration = .seconds(30), release: @escaping @Sendable () -> Void = {}, _ work: @escaping @Sendable () -> T
) async throws -> T {
    let result = Mutex<T?>(nil)
    let done = Mutex(false)
    Thread.detachNewThread {
        let value = work()
        result.withLock { $0 = value }
        done.withLock { $0 = true }
    }
    let start = ContinuousClock.now
    while !done.withLock({ $0 }) {
        guard ContinuousClock.now - start < wait else {
            release()
            throw StillBlocked()
        }
        try await Task.sleep(for: .milliseconds(10))
    }
    // The thread stored the result before it set `done`.
    return result.withLock { $0 }!
}

/// Unblocks a reader stuck on the FIFO at `path` by opening and closing its write end.
func releaseFIFO(_ path: String) -> @Sendable () -> Void {
    {
        let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        if fd >= 0 { close(fd) }
    }
}
