import DashportTestSupport
import DashportClock
import DashportLog
import Foundation
import Testing
@testable import DashportArtwork

/// Failures: answered at once, reported once per URI, retried only after the backoff.
@Suite struct ArtworkFailureTests {
    let scratch: TemporaryDirectory
    let server: LoopbackHTTPServer
    let clock = ManualClock()

    init() throws {
        scratch = try TemporaryDirectory()
        server = try LoopbackHTTPServer(routes: [
            ("/missing.jpg", .status(404)),
            ("/other-missing.jpg", .status(404)),
            ("/bomb.png", .body(Fixture.bomb, contentType: "image/png")),
            ("/truncated.jpg", .body(Fixture.truncated, contentType: "image/jpeg")),
            ("/stall.jpg", .stall),
            ("/hop/", .hops(final: Fixture.small)),
        ])
    }

    private func service(
        _ configure: (inout ArtworkConfiguration) -> Void = { _ in }, fetcher: (any ArtworkFetcher)? = nil
    ) -> ArtworkService {
        var configuration = ArtworkConfiguration.forTests(cache: scratch)
        configure(&configuration)
        return ArtworkService(configuration: configuration, fetcher: fetcher, clock: clock)
    }

    private func result(_ service: ArtworkService, _ key: ArtworkKey) async -> Result<ArtworkImage, ArtworkError> {
        do throws(ArtworkError) {
            return .success(try await service.image(for: key, width: 256, height: 256))
        } catch {
            return .failure(error)
        }
    }

    @Test func aFailureIsReportedOnceAndRetriedOnlyAfterTheBackoff() async throws {
        defer { server.stop() }
        let artwork = service()
        var notifications = await artwork.notifications().makeAsyncIterator()
        let uri = server.url("/missing.jpg")
        let key = try #require(await artwork.register(uri))

        #expect(await result(artwork, key) == .failure(.httpStatus(404)))
        #expect(await result(artwork, key) == .failure(.backingOff(retryAfter: .seconds(5))))
        await clock.advance(by: .seconds(4))
        #expect(await result(artwork, key) == .failure(.backingOff(retryAfter: .seconds(1))))
        #expect(server.requests(to: "/missing.jpg") == 1)

        await clock.advance(by: .seconds(1))  // 5 s: tried again, fails again, now 10 s
        #expect(await result(artwork, key) == .failure(.httpStatus(404)))
        #expect(server.requests(to: "/missing.jpg") == 2)
        await clock.advance(by: .seconds(9))
        #expect(await result(artwork, key) == .failure(.backingOff(retryAfter: .seconds(1))))
        await clock.advance(by: .seconds(1))
        #expect(await result(artwork, key) == .failure(.httpStatus(404)))
        #expect(server.requests(to: "/missing.jpg") == 3)

        // One notification for all of that: the next one is already another URI's.
        let otherKey = try #require(await artwork.register(server.url("/other-missing.jpg")))
        _ = await result(artwork, otherKey)
        let first = await notifications.next()
        let second = await notifications.next()
        #expect(first == .failed(key: key, uri: uri, reason: .httpStatus(404)))
        #expect(first?.code == "artworkFailed" && first?.severity == .degraded)
        #expect(second == .failed(key: otherKey, uri: server.url("/other-missing.jpg"), reason: .httpStatus(404)))
    }

    @Test func theBackoffIsCappedAndClearedBySuccess() async throws {
        defer { server.stop() }
        let artwork = service {
            $0.retryBackoff = .seconds(5)
            $0.maxRetryBackoff = .seconds(12)
        }
        var notifications = await artwork.notifications().makeAsyncIterator()
        let key = try #require(await artwork.register(server.url("/missing.jpg")))
        for wait in [5, 10, 12, 12] {
            #expect(await result(artwork, key) == .failure(.httpStatus(404)))
            #expect(await result(artwork, key) == .failure(.backingOff(retryAfter: .seconds(wait))))
            await clock.advance(by: .seconds(wait))
        }
        server.route("/missing.jpg", .body(Fixture.small))
        #expect(try await artwork.image(for: key, width: 256, height: 256).width == 120)
        server.route("/missing.jpg", .status(410))
        #expect(await result(artwork, ArtworkKey(rawValue: key.rawValue)).map(\.width) == .success(120))  // cached now
        #expect(await notifications.next() == .failed(key: key, uri: server.url("/missing.jpg"), reason: .httpStatus(404)))
    }

    @Test func decompressionBombsAreRefusedAndNotKept() async throws {
        defer { server.stop() }
        let artwork = service()
        let key = try #require(await artwork.register(server.url("/bomb.png")))
        #expect(await result(artwork, key) == .failure(.tooManyPixels(pixels: 100_000_000, limit: 50_000_000)))
        #expect(scratch.files(in: "cache").isEmpty)
    }

    @Test func corruptDataFailsWithVipsText() async throws {
        defer { server.stop() }
        let artwork = service()
        var notifications = await artwork.notifications().makeAsyncIterator()
        let key = try #require(await artwork.register(server.url("/truncated.jpg")))
        guard case .failure(.decodeFailed(let text)) = await result(artwork, key) else {
            Issue.record("expected decodeFailed")
            return
        }
        #expect(text.contains("JPEG") || text.contains("Jpeg"), "\(text)")
        guard case .failed(_, _, .decodeFailed) = await notifications.next() else {
            Issue.record("expected an artworkFailed notification")
            return
        }
        #expect(scratch.files(in: "cache").isEmpty)
    }

    @Test func aSlowServerTimesOutAndTooManyRedirectsFail() async throws {
        defer { server.stop() }
        // A short download limit only where the server never answers; the answered requests below
        // get the shipped limits, so a loaded machine cannot make them time out.
        let impatient = service { $0.downloadTimeout = .milliseconds(300) }
        let slow = try #require(await impatient.register(server.url("/stall.jpg")))
        #expect(await result(impatient, slow) == .failure(.timeout))
        let artwork = service()
        let hops = try #require(await artwork.register(server.url("/hop/4")))
        #expect(await result(artwork, hops) == .failure(.tooManyRedirects(limit: 3)))
        let fine = try #require(await artwork.register(server.url("/hop/3")))
        #expect(await result(artwork, fine).map(\.width) == .success(120))
    }

    @Test func theRequestDeadlineBoundsEveryWait() async throws {
        defer { server.stop() }
        // The deadline is on the service's clock: the test moves it past the deadline once the
        // request waits on it, while the fetcher is still busy. No real time is involved.
        let artwork = service({ $0.requestTimeout = .milliseconds(200) }, fetcher: SlowFetcher())
        let key = try #require(await artwork.register("https://covers.example/slow.jpg"))
        let waiting = Task { await result(artwork, key) }
        await clock.waitForSleeper(dueAt: .milliseconds(200))
        await clock.advance(by: .milliseconds(200))
        #expect(await waiting.value == .failure(.timeout))
    }
}

/// What a car reads about a failed cover never names a server path, a URI or the system's text.
@Suite struct ArtworkCarMessageTests {
    @Test(arguments: [
        ArtworkError.outsideRoots("/srv/private/cover.jpg"),
        .unsupportedScheme("ftp://intranet.example/private/cover.jpg"),
        .decodeFailed("VipsForeignLoad: \"/srv/private/cover.jpg\" is not a known file format"),
        .io("open /srv/private/cover.jpg: Permission denied"),
    ])
    func carMessagesNameNoServerDetail(error: ArtworkError) {
        #expect(!error.carMessage.contains("private"), "\(error.carMessage)")
        #expect(error.description.contains("private"), "the log keeps the detail")
    }

    @Test func failuresWithoutServerDetailAreToldAsLogged() {
        for error in [ArtworkError.httpStatus(404), .timeout, .tooLarge(bytes: 30_000_000, limit: 20_000_000)] {
            #expect(error.carMessage == error.description)
        }
    }
}
