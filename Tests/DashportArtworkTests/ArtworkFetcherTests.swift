import DashportFiles
import DashportTestSupport
import Foundation
import DashportTestSupport
import Testing
@testable import DashportArtwork

/// CurlArtworkFetcher against a loopback server the test starts.
@Suite struct ArtworkFetcherTests {
    let scratch: TemporaryDirectory
    let server: LoopbackHTTPServer
    let fetcher = CurlArtworkFetcher()
    /// Generous: only the stalling server is given a short limit, so a loaded machine fails nothing.
    let limits = ArtworkFetchLimits(maxBytes: 100_000, timeout: .seconds(30), maxRedirects: 3, allowPlainHTTP: true)

    init() throws {
        scratch = try TemporaryDirectory()
        server = try LoopbackHTTPServer(routes: [
            ("/cover.jpg", .body(Fixture.landscape, contentType: "image/jpeg")),
            ("/missing", .status(404)),
            ("/error", .status(500)),
            ("/hop/", .hops(final: Fixture.small)),
            ("/stall", .stall),
            ("/announced-huge", .announce(length: 50_000_000)),
            ("/endless", .body([UInt8](repeating: 0x41, count: 2_000_000), announceLength: false)),
        ])
    }

    private func fetch(_ path: String, limits: ArtworkFetchLimits? = nil) async -> Result<Int, ArtworkError> {
        let destination = scratch.file("download-\(UInt32.random(in: 0 ... .max))")
        guard let url = URL(string: server.url(path)) else { return .failure(.io("bad test URL")) }
        do throws(ArtworkError) {
            return .success(try await fetcher.fetch(url, into: destination, limits: limits ?? self.limits))
        } catch {
            return .failure(error)
        }
    }

    @Test func downloadsTheBodyIntoTheFile() async throws {
        defer { server.stop() }
        let destination = scratch.file("cover.jpg")
        let count = try await fetcher.fetch(try #require(URL(string: server.url("/cover.jpg"))), into: destination, limits: limits)
        #expect(count == Fixture.landscape.count)
        #expect(try Files.read(destination, limit: 1 << 20) == Fixture.landscape)
    }

    @Test func anErrorStatusIsAFailureNotAnImage() async {
        defer { server.stop() }
        let result = await fetch("/missing")
        #expect(result == .failure(.httpStatus(404)))
        let second = await fetch("/error")
        #expect(second == .failure(.httpStatus(500)))
    }

    @Test func redirectsUpToTheLimitAreFollowed() async {
        defer { server.stop() }
        let result = await fetch("/hop/3")
        #expect(result == .success(Fixture.small.count))
        #expect(server.requests(to: "/hop/0") == 1)
    }

    @Test func aLongerRedirectChainIsRefused() async {
        defer { server.stop() }
        let result = await fetch("/hop/4")
        #expect(result == .failure(.tooManyRedirects(limit: 3)))
        #expect(server.requests(to: "/hop/0") == 0)
    }

    @Test func aStalledServerTimesOut() async {
        defer { server.stop() }
        var impatient = limits
        impatient.timeout = .milliseconds(500)
        let result = await fetch("/stall", limits: impatient)
        #expect(result == .failure(.timeout))
    }

    @Test func anAnnouncedTooLargeBodyIsRefusedBeforeReading() async {
        defer { server.stop() }
        let result = await fetch("/announced-huge")
        #expect(result == .failure(.tooLarge(bytes: 50_000_000, limit: 100_000)))
    }

    @Test func anUnannouncedTooLargeBodyIsCutOffAtTheCap() async throws {
        defer { server.stop() }
        guard case .failure(.tooLarge(let bytes, let limit)) = await fetch("/endless") else {
            Issue.record("expected tooLarge")
            return
        }
        #expect(bytes > limit)
        #expect(limit == 100_000)
    }

    @Test func plainHTTPIsRefusedUnlessAllowed() async {
        defer { server.stop() }
        var strict = limits
        strict.allowPlainHTTP = false
        let result = await fetch("/cover.jpg", limits: strict)
        #expect(result == .failure(.unsupportedScheme(server.url("/cover.jpg"))))
        #expect(server.totalRequests == 0)
    }

    @Test func aRefusedConnectionIsAnIOError() async throws {
        server.stop()
        guard case .failure(.io) = await fetch("/cover.jpg") else {
            Issue.record("expected an io error")
            return
        }
    }
}
