import DashportTestSupport
import Foundation
import Glibc
import Synchronization
import Testing
import DashportLog
@testable import DashportServer

/// The inotify watcher under the catalog reload: what it reads and what it reacts to.
@Suite("Catalog watcher")
struct CatalogWatcherTests {
    /// One `struct inotify_event` as the kernel writes it (host byte order, name NUL-padded).
    static func event(mask: UInt32, name: String) -> [UInt8] {
        var nameBytes = Array(name.utf8) + [0]
        while nameBytes.count % 4 != 0 { nameBytes.append(0) }
        var bytes: [UInt8] = []
        for word in [UInt32(1), mask, 0, UInt32(nameBytes.count)] {
            withUnsafeBytes(of: word) { bytes += $0 }
        }
        return bytes + nameBytes
    }

    @Test func eventsAreReadWithTheirNames() {
        let bytes =
            Self.event(mask: UInt32(IN_MOVED_TO), name: "catalog.json") + Self.event(mask: UInt32(IN_IGNORED), name: "")
            + Self.event(mask: UInt32(IN_CLOSE_WRITE), name: "other.json")
        let events = CatalogWatcher.events(in: bytes[...])
        #expect(events.map(\.name) == ["catalog.json", "", "other.json"])
        #expect(events.map(\.mask) == [UInt32(IN_MOVED_TO), UInt32(IN_IGNORED), UInt32(IN_CLOSE_WRITE)])
        // A cut-off event is not read past the end.
        #expect(CatalogWatcher.events(in: bytes.dropLast(3)).count == 2)
    }

    @Test func anEditOfASymlinkedCatalogsTargetIsSeen() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-watch-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/real", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/config", withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: root + "/real/library.json"))
        try FileManager.default.createSymbolicLink(atPath: root + "/config/catalog.json", withDestinationPath: root + "/real/library.json")

        let changes = Mutex(0)
        let clock = ManualClock()
        let watcher = try #require(
            CatalogWatcher.start(path: root + "/config/catalog.json", logger: .silent, clock: clock, debounce: .seconds(1)) {
                changes.withLock { $0 += 1 }
            })
        defer { watcher.stop() }
        try Data("{ }".utf8).write(to: URL(fileURLWithPath: root + "/real/library.json"), options: .atomic)
        // The event arrives: the watcher waits out the debounce on the clock (nothing sleeps for real).
        await clock.waitForSleeper(dueAt: .seconds(1))
        #expect(changes.withLock { $0 } == 0, "not before the file has been quiet for the debounce")
        // The quiet period is checked once more, then the reload runs. The atomic write's events
        // (create, write, rename) may reach the watcher in more than one read: each later one
        // starts the quiet period again, so the clock moves until the one reload is reported.
        try await eventually("the change is reported") {
            if changes.withLock({ $0 }) == 0 { await clock.advance(by: .seconds(1)) }
            return changes.withLock { $0 } == 1
        }
    }
}
