import DashportTestSupport
import DashportClock
import DashportLog
import Foundation
import Testing
@testable import DashportArtwork

#if canImport(Glibc)
import Glibc
#endif

/// Registering a URI seen before: answered from what the registry remembers, checked again on time.
@Suite struct ArtworkRegistryMemoTests {
    let root: TemporaryDirectory
    let outside: TemporaryDirectory
    let start = ClockInstant(milliseconds: 1_000_000)

    init() throws {
        root = try TemporaryDirectory()
        outside = try TemporaryDirectory()
        root.write("cover.jpg", Fixture.small)
        outside.write("secret.jpg", Fixture.small)
    }

    private func registry(capacity: Int = 100, recheck: Duration = .seconds(1)) -> ArtworkRegistry {
        ArtworkRegistry(roots: [root.path], allowPlainHTTP: false, capacity: capacity, recheckInterval: recheck)
    }

    private func at(_ milliseconds: Int) -> ClockInstant { start + .milliseconds(milliseconds) }

    private var coverURI: String { "file://\(root.file("cover.jpg"))" }

    /// Sets the file's modification time, leaving its content, size and inode alone.
    private func touch(_ path: String, seconds: Int) {
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    }

    @Test func aRememberedURIIsNotHashedOrResolvedAgain() throws {
        var registry = registry()
        let remote = "https://covers.example/a.jpg?token=1"
        let remoteKey = try registry.register(remote, at: at(0)).get()
        let fileKey = try registry.register(coverURI, at: at(0)).get()
        for step in 1...50 {
            #expect(try registry.register(remote, at: at(step * 10)).get() == remoteKey)
            #expect(try registry.register(coverURI, at: at(step * 10)).get() == fileKey)
        }
        #expect(registry.counters == .init(keysComputed: 2, filesResolved: 1, filesChecked: 0))
        // The same keys a registry that never saw them computes.
        var fresh = self.registry()
        #expect(try fresh.register(remote, at: at(0)).get() == remoteKey)
        #expect(try fresh.register(coverURI, at: at(0)).get() == fileKey)
    }

    @Test func anUnchangedFileIsCheckedWithOneStatPerInterval() throws {
        var registry = registry()
        let key = try registry.register(coverURI, at: at(0)).get()
        #expect(try registry.register(coverURI, at: at(999)).get() == key)
        #expect(registry.counters.filesChecked == 0)
        #expect(try registry.register(coverURI, at: at(1000)).get() == key)
        #expect(try registry.register(coverURI, at: at(1999)).get() == key)
        #expect(registry.counters.filesChecked == 1)
        #expect(try registry.register(coverURI, at: at(2000)).get() == key)
        #expect(registry.counters == .init(keysComputed: 1, filesResolved: 1, filesChecked: 2))
    }

    @Test func anEditedFileGetsANewKeyAfterTheInterval() throws {
        var registry = registry()
        let original = try registry.register(coverURI, at: at(0)).get()
        root.write("cover.jpg", Fixture.landscape)
        #expect(try registry.register(coverURI, at: at(500)).get() == original)  // trusted until the interval is up
        let edited = try registry.register(coverURI, at: at(1000)).get()
        #expect(edited != original)
        #expect(registry.registration(for: edited)?.source == .file(root.file("cover.jpg")))
        // Only the modification time changes: the file is checked again, but the same bytes keep
        // their key (keys are content digests, so a moved or re-cloned library keeps its keys).
        touch(root.file("cover.jpg"), seconds: 1_000_000)
        let touched = try registry.register(coverURI, at: at(2000)).get()
        #expect(touched == edited)
        #expect(registry.counters.keysComputed == 3)
    }

    /// Keys are content digests up to `maxDigestedFileBytes`; past it the file is not read, and
    /// its key follows path, size and modification time (a touch is then a new key).
    @Test func aFileOverTheDigestLimitIsKeyedWithoutReadingIt() throws {
        var registry = registry()
        let big = root.file("huge.png")
        let fd = open(big, O_CREAT | O_WRONLY, 0o600)
        try #require(fd >= 0)
        #expect(ftruncate(fd, off_t(ArtworkRegistry.maxDigestedFileBytes + 1)) == 0)  // sparse: no disk used
        close(fd)
        let uri = "file://\(big)"
        let first = try registry.register(uri, at: at(0)).get()
        touch(big, seconds: 1_000_000)
        let touched = try registry.register(uri, at: at(1000)).get()
        #expect(touched != first, "over the limit the key follows the modification time")

        // Two files with the same bytes under the limit share one key; over it, they do not.
        root.write("copy.jpg", Fixture.landscape)
        root.write("cover.jpg", Fixture.landscape)
        #expect(
            try registry.register("file://\(root.file("copy.jpg"))", at: at(1000)).get()
                == registry.register(coverURI, at: at(1000)).get())
    }

    @Test func zeroIntervalChecksOnEveryRegistration() throws {
        var registry = registry(recheck: .zero)
        let original = try registry.register(coverURI, at: at(0)).get()
        #expect(try registry.register(coverURI, at: at(0)).get() == original)
        #expect(registry.counters == .init(keysComputed: 1, filesResolved: 1, filesChecked: 1))
        root.write("cover.jpg", Fixture.landscape)
        #expect(try registry.register(coverURI, at: at(0)).get() != original)
    }

    @Test func refusedURIsStayRefusedAndAreRememberedForTheInterval() {
        var registry = registry()
        let missing = "file://\(root.file("later.jpg"))"
        guard case .failure(.io) = registry.register(missing, at: at(0)) else {
            Issue.record("a missing file was registered")
            return
        }
        root.write("later.jpg", Fixture.small)
        guard case .failure(.io) = registry.register(missing, at: at(999)) else {
            Issue.record("a refusal was not remembered for the interval")
            return
        }
        #expect(registry.counters.filesResolved == 1)
        #expect((try? registry.register(missing, at: at(1000)).get()) != nil)  // it exists now

        symlink(outside.file("secret.jpg"), root.file("link.jpg"))
        let link = "file://\(root.file("link.jpg"))"
        let refusal = ArtworkError.outsideRoots(ArtworkRegistry.realPath(outside.file("secret.jpg")) ?? "")
        for step in 0..<5 { #expect(registry.register(link, at: at(step * 700)) == .failure(refusal)) }
        #expect(registry.register("ftp://covers.example/a.jpg", at: at(0)) == .failure(.unsupportedScheme("ftp://covers.example/a.jpg")))
        #expect(
            registry.register("ftp://covers.example/a.jpg", at: at(60_000)) == .failure(.unsupportedScheme("ftp://covers.example/a.jpg")))
    }

    @Test func theMemoHoldsAtMostTheCapacity() throws {
        var registry = registry(capacity: 4)
        for n in 0..<10 { root.write("\(n).jpg", Fixture.small) }
        for n in 0..<10 {
            _ = registry.register("https://covers.example/\(n).jpg", at: at(0))
            _ = registry.register("file://\(root.file("\(n).jpg"))", at: at(0))
            _ = registry.register("ftp://covers.example/\(n).jpg", at: at(0))
            _ = registry.register("file://\(root.file("missing-\(n).jpg"))", at: at(0))
            #expect(registry.rememberedCount <= 4 && registry.count <= 4)
        }
        // The most recent are remembered; the oldest are worked out again.
        let computed = registry.counters.keysComputed
        let recent = "file://\(root.file("9.jpg"))"
        _ = try registry.register(recent, at: at(0)).get()
        #expect(registry.counters.keysComputed == computed)
        _ = try registry.register("https://covers.example/0.jpg", at: at(0)).get()
        #expect(registry.counters.keysComputed == computed + 1)
        #expect(registry.rememberedCount == 4 && registry.count == 4)
    }

    @Test func veryLongURIsAreNotRemembered() throws {
        var registry = registry()
        let long = "https://covers.example/" + String(repeating: "a", count: ArtworkRegistry.maxRememberedURIBytes)
        let key = try registry.register(long, at: at(0)).get()
        #expect(try registry.register(long, at: at(0)).get() == key)
        #expect(registry.counters.keysComputed == 2)
        _ = registry.register("data:image/png;base64," + String(repeating: "A", count: 10_000), at: at(0))
        #expect(registry.rememberedCount == 0)
        #expect(registry.registration(for: key) != nil)
    }

    @Test func aFileSwappedForASymlinkOutOfTheRootIsRefusedWhenServed() async throws {
        let clock = ManualClock()
        let cache = try TemporaryDirectory()
        defer { cache.remove() }
        let sink = CollectingSink()
        let artwork = ArtworkService(
            configuration: .forTests(cache: cache, roots: [root.path]), logger: Logger(label: "test", sink: sink), clock: clock)
        let key = try #require(await artwork.register(coverURI))
        unlink(root.file("cover.jpg"))
        symlink(outside.file("secret.jpg"), root.file("cover.jpg"))
        #expect(await artwork.register(coverURI) == key)  // still trusted: the interval is not up
        let resolved = ArtworkRegistry.realPath(outside.file("secret.jpg")) ?? ""
        await #expect(throws: ArtworkError.outsideRoots(resolved)) {
            try await artwork.image(for: key, width: 64, height: 64)
        }
        await clock.advance(by: .seconds(1))
        #expect(await artwork.register(coverURI) == nil)
        await clock.advance(by: .seconds(1))
        #expect(await artwork.register(coverURI) == nil)
        #expect(sink.records.filter { $0.message.contains("refused") }.count == 1)  // logged once
    }
}

@Suite("Registering many URIs at once")
struct RegisterAllTests {
    @Test func registerAllReturnsTheKeysOfTheAcceptedURIsOnly() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.path
        let service = ArtworkService(configuration: ArtworkConfiguration(roots: [directory], cacheDirectory: directory + "/cache"))
        let accepted = "https://example.com/a.jpg"
        let refused = "ftp://example.com/b.jpg"
        let keys = await service.register(all: [accepted, refused])
        #expect(Set(keys.keys) == [accepted])
        #expect(keys[accepted] == (await service.register(accepted)))
    }
}
