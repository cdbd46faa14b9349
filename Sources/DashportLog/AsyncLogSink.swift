import DashportThread
import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// Writes log lines to standard error from its own thread, so logging never blocks the caller
/// (the reactor thread above all: a slow or full stderr pipe must not stall every car).
///
/// Records wait in a bounded queue (``capacity`` lines); when it is full new records are dropped
/// and counted, and the writer reports the count ("dropped N log lines") once it catches up. The
/// timestamp is taken when the record is logged, not when it is written.
public final class AsyncLogSink: LogSink {
    /// Lines held at most while the writer is behind.
    public let capacity: Int

    private struct State {
        var queue: [(LogRecord, Date)] = []
        var dropped = 0
        /// The writer has taken lines and not finished writing them.
        var writing = false
        /// Callers of ``releaseWriterThreadCache()`` waiting for the writer to do it.
        var cacheReleases: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let output: @Sendable (String) -> Void

    /// `output` receives each formatted line (with its newline); standard error by default.
    public init(capacity: Int = 4096, output: @escaping @Sendable (String) -> Void = AsyncLogSink.standardError) {
        self.capacity = max(1, capacity)
        self.output = output
        OSThread.start(name: "dashport-log") { [self] in self.run() }
    }

    public func write(_ record: LogRecord) {
        let stamped = (record, Date())
        let accepted = state.withLock { state -> Bool in
            guard state.queue.count < capacity else {
                state.dropped += 1
                return false
            }
            state.queue.append(stamped)
            return true
        }
        if accepted { wake.signal() }
    }

    /// Lines dropped because the queue was full, not yet reported.
    public var droppedCount: Int { state.withLock { $0.dropped } }

    /// Waits (up to `timeout`) until every queued line is written: before the process exits.
    public func flush(timeout: Duration = .seconds(2)) {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if state.withLock({ $0.queue.isEmpty && !$0.writing && $0.dropped == 0 }) { return }
            wake.signal()
            usleep(1000)
        }
    }

    /// Empties the writer thread's malloc cache and returns once it is done (the server calls it
    /// at rest, before giving malloc's free pages back: the writer frees every line it formats, and
    /// glibc keeps up to 448 such blocks per thread, each holding a page that `malloc_trim` must
    /// leave; see `OSThread.releaseMallocCache()`).
    public func releaseWriterThreadCache() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            state.withLock { $0.cacheReleases.append(done) }
            wake.signal()
        }
    }

    private func run() {
        while true {
            wake.wait()
            let (lines, dropped, releases) = state.withLock { state -> ([(LogRecord, Date)], Int, [CheckedContinuation<Void, Never>]) in
                defer {
                    state.queue.removeAll(keepingCapacity: true)
                    state.dropped = 0
                    state.writing = true
                    state.cacheReleases = []
                }
                return (state.queue, state.dropped, state.cacheReleases)
            }
            for (record, time) in lines { output(record.formatted(timestamp: time) + "\n") }
            if dropped > 0 {
                let note = LogRecord(
                    level: .warning, label: "log", message: "dropped \(dropped) log lines: the log could not keep up", metadata: [])
                output(note.formatted(timestamp: Date()) + "\n")
            }
            state.withLock { $0.writing = false }
            if !releases.isEmpty {
                OSThread.releaseMallocCache()
                releases.forEach { $0.resume() }
            }
        }
    }

    /// Writes `line` to standard error with one `write(2)`, so lines never interleave.
    public static let standardError: @Sendable (String) -> Void = { line in
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            _ = Glibc.write(2, buffer.baseAddress, buffer.count)
        }
    }
}
