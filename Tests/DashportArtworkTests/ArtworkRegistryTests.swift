import Foundation
import DashportTestSupport
import Testing
@testable import DashportArtwork

#if canImport(Glibc)
import Glibc
import DashportClock
#endif

@Suite struct ArtworkRegistryTests {
    let root: TemporaryDirectory
    let outside: TemporaryDirectory

    init() throws {
        root = try TemporaryDirectory()
        outside = try TemporaryDirectory()
        root.write("cover.jpg", Fixture.small)
        outside.write("secret.jpg", Fixture.small)
    }

    /// Checks files on every registration, so these tests see the full work each time
    /// (the memo has its own tests in ArtworkRegistryMemoTests).
    private func registry(allowPlainHTTP: Bool = false, capacity: Int = 100) -> ArtworkRegistry {
        ArtworkRegistry(roots: [root.path], allowPlainHTTP: allowPlainHTTP, capacity: capacity, recheckInterval: .zero)
    }

    @Test func httpsURIsBecomeStableOpaqueKeys() throws {
        var registry = registry()
        let uri = "https://covers.example/a/b.jpg?token=secret"
        let key = try registry.register(uri, at: .zero).get()
        #expect(key == ArtworkKey.digest(of: uri))
        #expect(try registry.register(uri, at: .zero).get() == key)
        #expect(try registry.register(uri + "&v=2", at: .zero).get() != key)
        let registration = try #require(registry.registration(for: key))
        #expect(registration.source == .remote(try #require(URL(string: uri))))
        #expect(registration.displayURI == "https://covers.example/a/b.jpg")
    }

    @Test(arguments: [
        "http://covers.example/a.jpg", "ftp://covers.example/a.jpg", "data:image/png;base64,AAAA",
        "javascript:alert(1)", "content://media/1", "https:///no-host.jpg", "not a uri",
    ])
    func unsupportedSchemesAreRefused(uri: String) {
        var registry = registry()
        guard case .failure(.unsupportedScheme) = registry.register(uri, at: .zero) else {
            Issue.record("\(uri) was not refused as an unsupported scheme")
            return
        }
        #expect(registry.count == 0)
    }

    @Test func plainHTTPOnlyWhenAllowed() {
        var registry = registry(allowPlainHTTP: true)
        #expect((try? registry.register("http://127.0.0.1:8080/a.jpg", at: .zero).get()) != nil)
    }

    @Test func filesInsideTheRootAreServed() throws {
        var registry = registry()
        let key = try registry.register("file://\(root.file("cover.jpg"))", at: .zero).get()
        #expect(registry.registration(for: key)?.source == .file(root.file("cover.jpg")))
        #expect((try? registry.register("file://localhost\(root.file("cover.jpg"))", at: .zero).get()) == key)
    }

    @Test func pathTraversalIsRefused() {
        var registry = registry()
        let result = registry.register("file://\(root.path)/../../../../../../etc/passwd", at: .zero)
        #expect(result == .failure(.outsideRoots("/etc/passwd")))
        // Refused either way: outside the roots, or (as a user who cannot enter /root) unresolvable.
        #expect((try? registry.register("file:///root/../etc/passwd", at: .zero).get()) == nil)
        #expect(registry.count == 0)
    }

    @Test func symlinksOutOfTheRootAreRefused() {
        symlink(outside.file("secret.jpg"), root.file("link.jpg"))
        symlink(outside.path, root.file("linked-dir"))
        var registry = registry()
        let resolved = ArtworkRegistry.realPath(outside.file("secret.jpg")) ?? ""
        #expect(registry.register("file://\(root.file("link.jpg"))", at: .zero) == .failure(.outsideRoots(resolved)))
        #expect(registry.register("file://\(root.file("linked-dir/secret.jpg"))", at: .zero) == .failure(.outsideRoots(resolved)))
    }

    @Test func symlinksWithinTheRootAreFine() {
        symlink(root.file("cover.jpg"), root.file("alias.jpg"))
        var registry = registry()
        #expect((try? registry.register("file://\(root.file("alias.jpg"))", at: .zero).get()) != nil)
    }

    @Test func missingFilesAndDirectoriesAreRefused() {
        mkdir(root.file("folder"), 0o700)
        var registry = registry()
        guard case .failure(.io) = registry.register("file://\(root.file("missing.jpg"))", at: .zero) else {
            Issue.record("a missing file was registered")
            return
        }
        guard case .failure(.io) = registry.register("file://\(root.file("folder"))", at: .zero) else {
            Issue.record("a directory was registered")
            return
        }
    }

    @Test func anEditedFileGetsANewKey() throws {
        var registry = registry()
        let uri = "file://\(root.file("cover.jpg"))"
        let before = try registry.register(uri, at: .zero).get()
        root.write("cover.jpg", Fixture.landscape)
        #expect(try registry.register(uri, at: .zero).get() != before)
    }

    @Test func theLeastRecentlyRegisteredIsForgottenFirst() throws {
        var registry = registry(capacity: 3)
        let keys = try (0..<3).map { try registry.register("https://covers.example/\($0).jpg", at: .zero).get() }
        _ = try registry.register("https://covers.example/0.jpg", at: .zero).get()  // 0 is fresh again
        let fourth = try registry.register("https://covers.example/3.jpg", at: .zero).get()
        #expect(registry.count == 3)
        #expect(registry.registration(for: keys[0]) != nil)
        #expect(registry.registration(for: keys[1]) == nil)
        #expect(registry.registration(for: keys[2]) != nil)
        #expect(registry.registration(for: fourth) != nil)
        for round in 0..<50 { _ = registry.register("https://covers.example/\(round % 2).jpg", at: .zero) }
        #expect(registry.count == 3)
    }
}
