import Synchronization

/// Output lines collected from a ``Transcript`` sink, from any thread.
final class CollectedLines: Sendable {
    private let storage = Mutex<[String]>([])
    var all: [String] { storage.withLock { $0 } }
    func append(_ line: String) { storage.withLock { $0.append(line) } }
}
