import DashportTestSupport
import DashportClock
import DashportLog
import Foundation
import Testing
@testable import DashportArtwork

#if canImport(Glibc)
import Glibc
#endif

/// The whole endpoint: registry, URLSession download from a loopback server, libvips, disk cache.
@Suite struct ArtworkServiceTests {
    let scratch: TemporaryDirectory
    let server: LoopbackHTTPServer

    init() throws {
        scratch = try TemporaryDirectory()
        server = try LoopbackHTTPServer(routes: [
            ("/landscape.jpg", .body(Fixture.landscape, contentType: "image/jpeg")),
            ("/small.jpg", .body(Fixture.small, contentType: "image/jpeg")),
            ("/alpha.png", .body(Fixture.alpha, contentType: "image/png")),
            ("/wide.webp", .body(Fixture.webp, contentType: "image/webp")),
            ("/bomb.png", .body(Fixture.bomb, contentType: "image/png")),
            ("/truncated.jpg", .body(Fixture.truncated, contentType: "image/jpeg")),
            ("/numbered/", .body(Fixture.landscape, contentType: "image/jpeg")),
            ("/missing.jpg", .status(404)),
        ])
    }

    private func service(
        _ configure: (inout ArtworkConfiguration) -> Void = { _ in }, logger: Logger = .silent,
        fetcher: (any ArtworkFetcher)? = nil, clock: ManualClock? = nil
    ) -> ArtworkService {
        var configuration = ArtworkConfiguration.forTests(cache: scratch, roots: [scratch.file("music")])
        configure(&configuration)
        return ArtworkService(configuration: configuration, logger: logger, fetcher: fetcher, clock: clock)
    }

    private func result(
        _ service: ArtworkService, _ key: ArtworkKey, _ width: Int = 256, _ height: Int = 256
    ) async -> Result<ArtworkImage, ArtworkError> {
        do throws(ArtworkError) {
            return .success(try await service.image(for: key, width: width, height: height))
        } catch {
            return .failure(error)
        }
    }

    @Test func servesEachFormatFittedIntoTheBox() async throws {
        defer { server.stop() }
        let artwork = service()
        let cases: [(String, Int, Int, Int, Int, String)] = [
            ("/landscape.jpg", 256, 256, 256, 128, ArtworkImage.jpeg),
            ("/landscape.jpg", 100, 300, 100, 50, ArtworkImage.jpeg),
            ("/small.jpg", 256, 256, 120, 80, ArtworkImage.jpeg),
            ("/wide.webp", 256, 256, 256, 128, ArtworkImage.jpeg),
            ("/alpha.png", 200, 200, 200, 150, ArtworkImage.png),
            ("/landscape.jpg", 0, 0, 256, 128, ArtworkImage.jpeg),
        ]
        for (path, boxWidth, boxHeight, width, height, mimeType) in cases {
            let key = try #require(await artwork.register(server.url(path)))
            let image = try await artwork.image(for: key, width: boxWidth, height: boxHeight)
            #expect(image.width == width && image.height == height, "\(path) into \(boxWidth)x\(boxHeight)")
            #expect(image.mimeType == mimeType, "\(path)")
            #expect(mimeType == ArtworkImage.png ? image.bytes.isPNG : image.bytes.isJPEG, "\(path)")
        }
        #expect(server.requests(to: "/landscape.jpg") == 1)  // three boxes, one download
    }

    @Test func concurrentRequestsShareOneDownloadAndOneResize() async throws {
        defer { server.stop() }
        let artwork = service()
        let key = try #require(await artwork.register(server.url("/landscape.jpg")))
        let images = try await withThrowingTaskGroup(of: ArtworkImage.self) { group in
            for _ in 0..<20 {
                group.addTask { try await artwork.image(for: key, width: 256, height: 256) }
            }
            return try await group.reduce(into: [ArtworkImage]()) { $0.append($1) }
        }
        #expect(images.count == 20)
        #expect(Set(images).count == 1)
        #expect(server.requests(to: "/landscape.jpg") == 1)
        let stats = await artwork.statistics()
        #expect(stats.downloads == 1)
        #expect(stats.resizes == 1)
        #expect(stats.cacheHits + 1 <= 20)
    }

    /// A peer cycling through hundreds of sizes of one cover costs at most `maxSizesPerCover`
    /// decodes (and cache files): past them a size is answered with the nearest one made, the
    /// smallest that covers the box, else the largest. Said once in the log.
    @Test func hundredsOfSizesOfOneCoverCostAFewDecodes() async throws {
        defer { server.stop() }
        let sink = CollectingSink()
        let artwork = service({ $0.maxSizesPerCover = 4 }, logger: Logger(label: "test", sink: sink))
        let key = try #require(await artwork.register(server.url("/landscape.jpg")))
        for side in [64, 128, 256, 512] { _ = try await artwork.image(for: key, width: side, height: side) }
        var widths: [Int] = []
        for side in stride(from: 65, through: 600, by: 7) {
            widths.append(try await artwork.image(for: key, width: side, height: side).width)
        }
        #expect(Set(widths) == [128, 256, 512], "the nearest made size that covers the box")
        #expect(try await artwork.image(for: key, width: 900, height: 900).width == 512, "none covers it: the largest")
        #expect(try await artwork.image(for: key, width: 64, height: 64).width == 64, "a made size is served as asked")
        let stats = await artwork.statistics()
        #expect(stats.resizes == 4)
        #expect(sink.records.filter { $0.message.contains("sizes of one cover") }.count == 1)
    }

    @Test func concurrentRequestsForDifferentBoxesShareOneDownload() async throws {
        defer { server.stop() }
        let artwork = service()
        let key = try #require(await artwork.register(server.url("/landscape.jpg")))
        let widths = try await withThrowingTaskGroup(of: Int.self) { group in
            for side in [64, 128, 256, 512] {
                group.addTask { try await artwork.image(for: key, width: side, height: side).width }
            }
            return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
        }
        #expect(widths == [64, 128, 256, 512])
        #expect(server.requests(to: "/landscape.jpg") == 1)
        let stats = await artwork.statistics()
        #expect(stats.downloads == 1 && stats.resizes == 4)
    }

    @Test func unregisteredKeysAreRefusedAndLoggedOnce() async throws {
        defer { server.stop() }
        let sink = CollectingSink()
        let artwork = service(logger: Logger(label: "test", sink: sink))
        let stranger = ArtworkKey.digest(of: server.url("/landscape.jpg"))
        #expect(await result(artwork, stranger) == .failure(.notRegistered(stranger)))
        #expect(await result(artwork, stranger) == .failure(.notRegistered(stranger)))
        let traversal = ArtworkKey(rawValue: "../../etc/passwd")
        #expect(await result(artwork, traversal) == .failure(.notRegistered(traversal)))
        #expect(sink.records.filter { $0.message.contains("unregistered") }.count == 2)
        #expect(sink.records.allSatisfy { $0.label == "artwork" })
        #expect(server.totalRequests == 0)
    }

    @Test func refusedRegistrationsAnswerNilAndAreLoggedOnce() async throws {
        defer { server.stop() }
        let sink = CollectingSink()
        let artwork = service({ $0.allowPlainHTTP = false }, logger: Logger(label: "test", sink: sink))
        #expect(await artwork.register(server.url("/landscape.jpg")) == nil)
        #expect(await artwork.register("ftp://covers.example/a.jpg") == nil)
        #expect(await artwork.register("ftp://covers.example/a.jpg") == nil)
        #expect(await artwork.register("file:///etc/passwd") == nil)
        #expect(await artwork.register("ftp://covers.example/b.jpg?token=secret") == nil)
        #expect(sink.records.filter { $0.message.contains("refused") }.count == 4)
        #expect(!sink.records.contains { $0.message.contains("secret") })  // queries may hold tokens
    }

    @Test func boxesOutsideTheLimitsAreRefused() async throws {
        defer { server.stop() }
        let artwork = service { $0.maxSize = 1024 }
        let key = try #require(await artwork.register(server.url("/landscape.jpg")))
        #expect(await result(artwork, key, 2000, 100) == .failure(.invalidSize(width: 2000, height: 100)))
        #expect(await result(artwork, key, 100, -1) == .failure(.invalidSize(width: 100, height: -1)))
        #expect(server.totalRequests == 0)
    }

    @Test func filesInsideTheRootsAreServedAndTraversalIsNot() async throws {
        defer { server.stop() }
        mkdir(scratch.file("music"), 0o700)
        mkdir(scratch.file("elsewhere"), 0o700)
        scratch.write("music/cover.png", Fixture.alpha)
        scratch.write("elsewhere/secret.jpg", Fixture.landscape)
        let artwork = service()
        let key = try #require(await artwork.register("file://\(scratch.file("music/cover.png"))"))
        let image = try await artwork.image(for: key, width: 100, height: 100)
        #expect(image.width == 100 && image.height == 75 && image.mimeType == ArtworkImage.png)
        #expect(await artwork.register("file://\(scratch.file("music/../elsewhere/secret.jpg"))") == nil)
        symlink(scratch.file("elsewhere/secret.jpg"), scratch.file("music/link.jpg"))
        #expect(await artwork.register("file://\(scratch.file("music/link.jpg"))") == nil)
    }

    @Test func aSymlinkSwappedAfterRegistrationIsCaughtWhenServing() async throws {
        defer { server.stop() }
        mkdir(scratch.file("music"), 0o700)
        mkdir(scratch.file("elsewhere"), 0o700)
        scratch.write("music/real.jpg", Fixture.small)
        scratch.write("elsewhere/secret.jpg", Fixture.small)
        symlink(scratch.file("music/real.jpg"), scratch.file("music/cover.jpg"))
        let artwork = service()
        let key = try #require(await artwork.register("file://\(scratch.file("music/cover.jpg"))"))
        unlink(scratch.file("music/cover.jpg"))
        symlink(scratch.file("elsewhere/secret.jpg"), scratch.file("music/cover.jpg"))
        let outcome = await result(artwork, key)
        #expect(outcome == .failure(.outsideRoots(ArtworkRegistry.realPath(scratch.file("elsewhere/secret.jpg")) ?? "")))
    }

    @Test func theCacheStaysWithinItsByteBound() async throws {
        defer { server.stop() }
        let bound = 40_000
        let artwork = service { $0.maxCacheBytes = bound }
        for n in 0..<12 {
            let key = try #require(await artwork.register(server.url("/numbered/\(n).jpg")))
            _ = try await artwork.image(for: key, width: 256, height: 256)
            await artwork.settled()  // a cover is answered before its file is written
            #expect(scratch.files(in: "cache").values.reduce(0, +) <= bound)
        }
        // The newest is still there; the oldest was evicted first and has to be fetched again.
        let newest = try #require(await artwork.register(server.url("/numbered/11.jpg")))
        _ = try await artwork.image(for: newest, width: 256, height: 256)
        #expect(server.requests(to: "/numbered/11.jpg") == 1)
        let oldest = try #require(await artwork.register(server.url("/numbered/0.jpg")))
        _ = try await artwork.image(for: oldest, width: 256, height: 256)
        #expect(server.requests(to: "/numbered/0.jpg") == 2)
    }

    @Test func aRestartServesFromTheCacheWithoutADownload() async throws {
        defer { server.stop() }
        let first = service()
        let key = try #require(await first.register(server.url("/landscape.jpg")))
        let image = try await first.image(for: key, width: 256, height: 256)
        await first.settled()  // answered before its files were written; a stopping server waits so too
        let second = service()
        #expect(await second.register(server.url("/landscape.jpg")) == key)
        #expect(try await second.image(for: key, width: 256, height: 256) == image)
        #expect(try await second.image(for: key, width: 64, height: 64).width == 64)  // from the cached original
        #expect(server.requests(to: "/landscape.jpg") == 1)
        let stats = await second.statistics()
        #expect(stats.downloads == 0 && stats.cacheHits == 1 && stats.resizes == 1)
    }
}
