import DashportFiles
import DashportTestSupport
import Foundation
import DashportTestSupport
import Testing
@testable import DashportArtwork

/// A hostile or broken cover host against CurlArtworkFetcher (issue 11 item 3 and the artwork faults):
/// whatever it sends, the fetcher takes in at most the cap plus one receive buffer, never
/// decompresses, and ends with a clear error. Bounds are asserted on bytes held, not on RSS.
@Suite struct ArtworkFetcherHostileTests {
    let scratch: TemporaryDirectory
    let fetcher = CurlArtworkFetcher()
    let limits = ArtworkFetchLimits(maxBytes: 100_000, timeout: .seconds(5), maxRedirects: 3, allowPlainHTTP: true)

    init() throws {
        scratch = try TemporaryDirectory()
    }

    /// `count` zero bytes gzip-compressed (with the system's gzip): about 1000:1.
    static func gzippedZeros(_ count: Int) async throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "head -c \(count) /dev/zero | gzip -c -9"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = await onAThread { output.fileHandleForReading.readDataToEndOfFile() }
        await onAThread { process.waitUntilExit() }
        return [UInt8](data)
    }

    func download(_ server: LoopbackHTTPServer, _ path: String, limits: ArtworkFetchLimits? = nil) async -> (
        CurlArtworkFetcher.Outcome, String
    ) {
        let destination = scratch.file("download-\(UInt32.random(in: 0 ... .max))")
        let url = URL(string: server.url(path))!  // a loopback URL built from a literal path: always valid
        return (await fetcher.download(url, into: destination, limits: limits ?? self.limits), destination)
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }

    @Test func aBodyWithoutALengthIsCutAtTheCapHoldingOneBufferAtMost() async throws {
        let server = try LoopbackHTTPServer(routes: [
            ("/endless", .body([UInt8](repeating: 0x41, count: 5_000_000), announceLength: false))
        ])  // binding loopback port 0 cannot fail here
        defer { server.stop() }
        let (outcome, file) = await download(server, "/endless")
        guard case .tooLarge(let bytes, let limit)? = outcome.error else {
            Issue.record("expected tooLarge, got \(String(describing: outcome.error))")
            return
        }
        #expect(limit == 100_000 && bytes > limit && bytes <= limit + CurlArtworkFetcher.receiveBufferSize)
        #expect(outcome.error?.description.contains("artwork too large") == true)
        #expect(outcome.bytes <= limits.maxBytes)
        #expect(outcome.largestChunk <= CurlArtworkFetcher.receiveBufferSize)
        #expect(Self.size(file) == outcome.bytes)
    }

    @Test func aGzipBombIsNeverInflated() async throws {
        let small = try await Self.gzippedZeros(20_000_000)  // ~20 KB that would inflate to 20 MB
        let large = try await Self.gzippedZeros(150_000_000)  // ~145 KB that would inflate to 150 MB
        #expect(small.count < limits.maxBytes && large.count > limits.maxBytes)
        let server = try LoopbackHTTPServer(routes: [
            ("/small.jpg", .raw(headers: ["Content-Encoding: gzip", "Content-Length: \(small.count)"], body: small)),
            ("/large.jpg", .raw(headers: ["Content-Encoding: gzip"], body: large)),
        ])
        defer { server.stop() }
        // Taken as it came: the compressed bytes, which then fail to decode as an image.
        let (fine, file) = await download(server, "/small.jpg")
        #expect(fine.error == nil)
        #expect(fine.bytes == small.count)
        #expect(try Files.read(file, limit: 1 << 20).prefix(2) == [0x1F, 0x8B])
        // Over the cap as received: cut there.
        let (cut, _) = await download(server, "/large.jpg")
        guard case .tooLarge? = cut.error else {
            Issue.record("expected tooLarge, got \(String(describing: cut.error))")
            return
        }
        #expect(cut.bytes <= limits.maxBytes && cut.largestChunk <= CurlArtworkFetcher.receiveBufferSize)
    }

    @Test func aBodyCutShortIsAnIOError() async throws {
        let server = try LoopbackHTTPServer(routes: [
            ("/cut.jpg", .raw(headers: ["Content-Length: 50000"], body: [UInt8](repeating: 7, count: 5000)))
        ])
        defer { server.stop() }
        let (outcome, _) = await download(server, "/cut.jpg")
        guard case .io(let text)? = outcome.error else {
            Issue.record("expected an io error, got \(String(describing: outcome.error))")
            return
        }
        #expect(!text.isEmpty)
        #expect(outcome.bytes == 5000)
    }

    @Test func aTrickleEndsAtTheDeadline() async throws {
        let server = try LoopbackHTTPServer(routes: [("/slow.jpg", .trickle(count: 1000, interval: .milliseconds(100)))])
        defer { server.stop() }
        var short = limits
        short.timeout = .milliseconds(600)
        let (outcome, _) = await download(server, "/slow.jpg", limits: short)
        #expect(outcome.error == .timeout)
        #expect(outcome.bytes < 1000)
    }

    @Test func aRedirectLoopEndsAtTheLimit() async throws {
        let server = try LoopbackHTTPServer(routes: [])
        server.route("/loop", .redirect(to: server.url("/loop")))
        defer { server.stop() }
        let (outcome, _) = await download(server, "/loop")
        #expect(outcome.error == .tooManyRedirects(limit: 3))
        #expect(server.requests(to: "/loop") == 4)
    }

    @Test func aRedirectToAnotherSchemeIsRefused() async throws {
        let server = try LoopbackHTTPServer(routes: [("/away", .redirect(to: "file:///etc/passwd"))])
        defer { server.stop() }
        let (outcome, _) = await download(server, "/away")
        guard case .unsupportedScheme? = outcome.error else {
            Issue.record("expected unsupportedScheme, got \(String(describing: outcome.error))")
            return
        }
    }

    @Test func aCancelledFetchEnds() async throws {
        let server = try LoopbackHTTPServer(routes: [("/stall", .stall)])
        defer { server.stop() }
        var long = limits
        long.timeout = .seconds(120)
        let task = Task { await download(server, "/stall", limits: long).0 }
        try await eventually("the download to be under way") { server.requests(to: "/stall") == 1 }
        task.cancel()
        #expect(await task.value.error == .io("download cancelled"))
    }
}
