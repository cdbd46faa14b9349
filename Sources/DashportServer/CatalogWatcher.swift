import CDashportLinux
import Dispatch
import FoundationEssentials
import Glibc
import DashportClock
import DashportLog
import Synchronization

/// Watches the catalog file with inotify and calls `onChange` once the file has been quiet for
/// ``debounce`` after a change.
///
/// It watches the file's *directory*, not the file: an editor that saves by writing a temporary
/// file and renaming it over the catalog replaces the inode a file watch would follow. Events for
/// other names in the directory are ignored. A burst of events (an editor's write, chmod, rename)
/// is one reload; a change during a reload makes one more.
final class CatalogWatcher: Sendable {
    /// How long the file must be quiet before it is read: long enough for a save of several
    /// writes, short enough that a person sees the change at once.
    static let debounce: Duration = .milliseconds(250)
    /// The inotify events that mean the file's content may have changed.
    static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_MODIFY | IN_DELETE | IN_MOVED_FROM | IN_ATTRIB)

    private let source: Mutex<(any DispatchSourceRead)?>
    private let worker: Task<Void, Never>

    /// Starts watching `path`; nil (with the reason logged) when inotify or the directory refuses.
    static func start(
        path: String, logger: Logger, clock: any DashportClock, debounce: Duration = CatalogWatcher.debounce,
        onChange: @escaping @Sendable () async -> Void
    ) -> CatalogWatcher? {
        // A symlinked catalog: watch the link's directory (the link replaced) and the target's (the file edited).
        let link = URL(fileURLWithPath: path)
        let target = link.resolvingSymlinksInPath()
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else {
            logger.warning("cannot watch the catalog (inotify: \(String(cString: strerror(errno)))); reload it with SIGHUP")
            return nil
        }
        for directory in Set([link.deletingLastPathComponent().path, target.deletingLastPathComponent().path]) {
            guard inotify_add_watch(fd, directory, mask) >= 0 else {
                logger.warning("cannot watch \(directory) (\(String(cString: strerror(errno)))); reload the catalog with SIGHUP")
                close(fd)
                return nil
            }
        }
        return CatalogWatcher(
            fd: fd, names: [link.lastPathComponent, target.lastPathComponent], logger: logger, clock: clock, debounce: debounce,
            onChange: onChange)
    }

    private init(
        fd: Int32, names: Set<String>, logger: Logger, clock: any DashportClock, debounce: Duration,
        onChange: @escaping @Sendable () async -> Void
    ) {
        let (pulses, pulse) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let changes = Arc(Atomic<UInt64>(0))
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "dashport.catalog-watch"))
        source.setEventHandler {
            let (matched, lost) = CatalogWatcher.drain(fd, matching: names)
            if lost {
                logger.warning(
                    "the catalog's directory is no longer watched (removed or unmounted); reload with SIGHUP or dashport ctl reload")
            }
            if matched {
                changes.value.add(1, ordering: .relaxed)
                pulse.yield()
            }
        }
        source.setCancelHandler {
            close(fd)
            pulse.finish()
        }
        source.resume()
        self.source = Mutex(source)
        self.worker = Task {
            for await _ in pulses {
                // Wait until a whole `debounce` passes with no new event, then reload once.
                var seen = changes.value.load(ordering: .relaxed)
                while true {
                    do { try await clock.sleep(for: debounce) } catch { return }
                    let now = changes.value.load(ordering: .relaxed)
                    if now == seen { break }
                    seen = now
                }
                await onChange()
            }
        }
        logger.info("watching the catalog for changes")
    }

    /// Stops watching (closes the inotify descriptor).
    func stop() {
        source.withLock { source in
            source?.cancel()
            source = nil
        }
        worker.cancel()
    }

    /// Reads every pending event: whether one names the catalog (the link or its target) or ended a
    /// watch (`lost`: the directory went away; the reload that follows reports the missing file).
    private static func drain(_ fd: Int32, matching names: Set<String>) -> (matched: Bool, lost: Bool) {
        var matched = false
        var lost = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return (matched, lost) }
            for event in events(in: buffer[..<count]) {
                let ended = event.mask & UInt32(IN_IGNORED) != 0
                lost = lost || ended
                matched = matched || ended || names.contains(event.name)
            }
        }
    }

    /// The events in one read: `struct inotify_event { int wd; uint32 mask, cookie, len; char name[len]; }`.
    static func events(in bytes: ArraySlice<UInt8>) -> [(mask: UInt32, name: String)] {
        var found: [(UInt32, String)] = []
        var at = bytes.startIndex
        let header = 16
        while bytes.endIndex - at >= header {
            func word(_ offset: Int) -> UInt32 {  // host byte order, as the kernel writes it
                bytes[(at + offset)..<(at + offset + 4)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            }
            let mask = word(4)
            let length = Int(word(12))
            guard bytes.endIndex - at - header >= length else { break }
            let nameBytes = bytes[(at + header)..<(at + header + length)].prefix { $0 != 0 }
            found.append((mask, String(decoding: nameBytes, as: UTF8.self)))
            at += header + length
        }
        return found
    }
}
