import Synchronization
import Testing

/// Collects what a stream delivers and lets a test wait until what it has satisfies a condition.
/// Waits are bounded; nothing here measures time.
actor Recorder<Element: Sendable> {
    private(set) var items: [Element] = []
    private var finished = false
    private var waiters: [Int: (condition: @Sendable ([Element]) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = [:]
    private var nextID = 0

    /// Starts consuming `stream` into a new recorder.
    static func recording(_ stream: AsyncStream<Element>) -> Recorder<Element> {
        let recorder = Recorder()
        Task {
            for await item in stream { await recorder.append(item) }
            await recorder.finish()
        }
        return recorder
    }

    func append(_ item: Element) {
        items.append(item)
        wake()
    }

    func finish() {
        finished = true
        for waiter in waiters.values { waiter.continuation.resume(returning: waiter.condition(items)) }
        waiters = [:]
    }

    /// Whether `condition` holds for the items, waiting up to `timeout` (or the stream's end).
    func wait(timeout: Duration = .seconds(20), until condition: @escaping @Sendable ([Element]) -> Bool) async -> Bool {
        if condition(items) || finished { return condition(items) }
        let id = nextID
        nextID += 1
        let expiry = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.expire(id)
        }
        defer { expiry.cancel() }
        return await withCheckedContinuation { waiters[id] = (condition, $0) }
    }

    private func wake() {
        for (id, waiter) in waiters where waiter.condition(items) {
            waiters[id] = nil
            waiter.continuation.resume(returning: true)
        }
    }

    private func expire(_ id: Int) {
        waiters.removeValue(forKey: id)?.continuation.resume(returning: false)
    }
}

/// Output lines collected from a ``Transcript`` sink, from any thread.
final class CollectedLines: Sendable {
    private let storage = Mutex<[String]>([])
    var all: [String] { storage.withLock { $0 } }
    func append(_ line: String) { storage.withLock { $0.append(line) } }
}
