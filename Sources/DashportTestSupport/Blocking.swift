import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The call ``finishesOnAThread(wait:release:_:)`` ran had not returned: it blocks.
public struct StillBlocked: Error, CustomStringConvertible {
    public var description: String { "the call had not returned after the generous wait: it blocks" }
}

/// Runs `work` on its own detached thread and returns its result, or throws ``StillBlocked`` if it
/// has not returned after `wait` (generous: only a call that blocks for good gets near it). A
/// regression that makes `work` block therefore fails the test instead of hanging the suite; the
/// stuck thread is then unblocked by `release` (for a FIFO: ``releaseFIFO(_:)``).
public func finishesOnAThread<T: Sendable>(
    wait: Duration = .seconds(30), release: @escaping @Sendable () -> Void = {}, _ work: @escaping @Sendable () -> T
) async throws -> T {
    let result = Mutex<T?>(nil)
    Thread.detachNewThread {
        let value = work()
        result.withLock { $0 = value }
    }
    let start = ContinuousClock.now
    while true {
        if let value = result.withLock({ $0 }) { return value }
        guard ContinuousClock.now - start < wait else {
            release()
            throw StillBlocked()
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

extension TemporaryDirectory {
    /// Makes a FIFO named `name` here: opening it for reading blocks until a writer comes.
    public func fifo(_ name: String) throws -> String {
        let path = file(name)
        guard mkfifo(path, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return path
    }
}

/// Unblocks a reader stuck on the FIFO at `path` by opening and closing its write end.
public func releaseFIFO(_ path: String) -> @Sendable () -> Void {
    {
        let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        if fd >= 0 { close(fd) }
    }
}

/// Runs blocking `work` (a child process's output or exit) on a thread of its own and awaits it.
///
/// Swift Testing runs every test on the cooperative pool, which has one thread per core: two on the
/// target. A test that waits for a child process on a pool thread (even inside `Task.detached`)
/// stops every other test's tasks (their cars' links and timers) for as long as the child takes.
public func onAThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}
