import DashportArtwork
import DashportBrowse
import DashportFiles
import DashportMessages
import DashportTestSupport
import Foundation
import Testing
import DashportLog
@testable import DashportServer

#if canImport(Glibc)
import Glibc
#endif

/// A cover host that drops the connection mid-body, trickles one byte at a time, or redirects in a
/// loop, behind a running server (issue 11). One car asks for that cover while a second car keeps
/// browsing: the second car's answers keep coming and stay the same, the first car gets the
/// documented `CODE_FETCH_FAILED` error (at once, the next time: the URI backs off and the host is
/// not asked again), the fault is logged exactly once with its cause, and nothing of the failed
/// download is left in the artwork cache. A good cover from the same host is then served.
@Suite struct CoverHostFaultsOverTCPTests {
    enum Fault: String, CaseIterable, Sendable {
        case dropMidBody = "drop"
        case trickle
        case redirectLoop = "loop"

        /// What the single log line says about the cause.
        var cause: String {
            switch self {
            case .dropMidBody: "partial file"
            case .trickle: "timed out"
            case .redirectLoop: "redirected more than"
            }
        }

        /// What the car is told (`ArtworkError.carMessage`: never the system's text, which the log keeps).
        var carCause: String {
            switch self {
            case .dropMidBody: "could not be read or downloaded"
            case .trickle, .redirectLoop: cause
            }
        }
    }

    /// The demo library, plus `fault-covers`: one item per cover path on the loopback host.
    struct CoverProvider: BrowseProvider {
        let demo: CatalogProvider
        let host: String

        func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
            guard parentId == "fault-covers" else { return try await demo.children(of: parentId, page: page, pageSize: pageSize) }
            return (Fault.allCases.map(\.rawValue) + ["good"]).map {
                BrowseItem(id: "cover-\($0)", title: "Cover \($0)", artworkUri: "\(host)/\($0)", playable: true)
            }
        }

        func item(id: String) async throws -> BrowseItem? { try await demo.item(id: id) }
    }

    static let jpeg: [UInt8] = {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/artwork/landscape-800x400.jpg")
        // The fixture is in the repository; a missing one fails every test here at once.
        return [UInt8]((try? Data(contentsOf: fixtures)) ?? Data())
    }()

    @Test(arguments: Fault.allCases)
    func aFaultyCoverHostFailsOnlyThatCover(fault: Fault) async throws {
        try #require(!Self.jpeg.isEmpty)
        let host = try LoopbackHTTPServer(routes: [
            (
                "/drop",
                .raw(headers: ["Content-Type: image/jpeg", "Content-Length: \(Self.jpeg.count)"], body: Array(Self.jpeg.prefix(2000)))
            ),
            ("/trickle", .trickle(count: Self.jpeg.count, interval: .milliseconds(250))),
            ("/loop", .redirect(to: "/loop")),
            ("/good", .body(Self.jpeg, contentType: "image/jpeg")),
        ])
        defer { host.stop() }
        let provider = CoverProvider(demo: try CatalogProvider(contentsOf: try DemoLibrary.catalogPath()), host: host.url(""))
        // The server's time stands still (curl's own download limit still runs on real time), so the
        // 5 s backoff after the failure cannot run out before the car asks again, however loaded the
        // machine: the retry is backed off because of what happened, not because it came quickly.
        try await TestServer.with(
            provider: provider, clock: ManualClock(),
            configure: {
                $0.artworkAllowPlainHTTP = true
                $0.artworkDownloadTimeout = .seconds(4)  // the trickle's end; it sends for far longer
            }
        ) { server in
            let asking = try await FaultCars.linked(server)
            let browsing = try await FaultCars.linked(server)
            let root = try await FaultCars.rootId(browsing)
            let tabs = try await FaultCars.items(browsing, root)
            let albums = try await FaultCars.items(browsing, "tab-albums")
            try #require(tabs.count == 4 && !albums.isEmpty)

            let covers = try await FaultCars.items(asking, "fault-covers")
            let keys = Dictionary(uniqueKeysWithValues: covers.compactMap { item in item.artworkKey.map { (item.id, $0) } })
            let key = try #require(keys["cover-\(fault.rawValue)"])
            let goodKey = try #require(keys["cover-good"])

            // The cover is asked for; once the host has the request, the other car browses.
            let request = await FaultCars.askArtwork(asking, key: key)
            try await eventually("the cover host is asked") { host.requests(to: "/\(fault.rawValue)") > 0 }
            for _ in 0..<3 {
                #expect(try await FaultCars.items(browsing, root) == tabs)
                #expect(try await FaultCars.items(browsing, "tab-albums") == albums)
            }

            // The asking car gets the documented error, naming the cause.
            let answer = try await FaultCars.artworkAnswer(asking, request)
            guard case .error(let error) = answer.outcome else {
                Issue.record("expected an error for the \(fault) cover, got \(String(describing: answer.outcome))")
                return
            }
            #expect(error.code == .fetchFailed)
            #expect(error.message?.contains(fault.carCause) == true, "\(error.message ?? "-")")
            #expect(try await FaultCars.items(browsing, root) == tabs)

            // Asked again: backing off, answered at once, the host not asked again.
            let asked = host.requests(to: "/\(fault.rawValue)")
            let again = try await FaultCars.artwork(asking, key: key)
            guard case .error(let retry) = again.outcome else {
                Issue.record("expected the backoff error, got \(String(describing: again.outcome))")
                return
            }
            #expect(retry.code == .fetchFailed && retry.message?.contains("failed recently") == true, "\(retry.message ?? "-")")
            #expect(host.requests(to: "/\(fault.rawValue)") == asked)

            // Logged once, with its cause.
            let lines = server.log.records.filter { $0.level > .debug && $0.message.contains("artwork failed") }
            #expect(lines.count == 1, "\(lines.map(\.message))")
            #expect(lines.allSatisfy { $0.message.contains(fault.cause) }, "\(lines.map(\.message))")

            // Nothing of the failed download in the cache; a good cover of the same host is served
            // and cached.
            let good = try await FaultCars.artwork(asking, key: goodKey)
            guard case .image(let image) = good.outcome else {
                Issue.record("expected the good cover, got \(String(describing: good.outcome))")
                return
            }
            #expect(max(image.width, image.height) == 128)
            // A cover is answered before its cache write lands (beside stress the listing caught
            // the good cover's thumbnail as a temporary file): wait for the writes.
            await server.server.core.artwork.settled()
            let cached = try Files.list(server.stateDirectory + "/artwork-cache")
            #expect(!cached.contains { Files.isTemporary($0) || $0.contains(key) }, "\(cached)")
            #expect(cached.contains("o-\(goodKey)"), "\(cached)")
            #expect(try await FaultCars.items(browsing, "tab-albums") == albums)
            await asking.abort()
            await browsing.abort()
        }
    }

    /// A full disk is not the cover host's fault: the download that has nowhere to go answers
    /// `CODE_FETCH_FAILED` naming the disk, the cache logs it once, the cover is not put into
    /// backoff, and it is served as soon as there is room.
    @Test func aFullDiskFailsTheDownloadWithoutBlamingTheHost() async throws {
        try #require(!Self.jpeg.isEmpty)
        let host = try LoopbackHTTPServer(routes: [("/good", .body(Self.jpeg, contentType: "image/jpeg"))])
        defer { host.stop() }
        let provider = CoverProvider(demo: try CatalogProvider(contentsOf: try DemoLibrary.catalogPath()), host: host.url(""))
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-full-cover-\(UUID().uuidString)").path
        defer { Files.clearWriteFault(under: state) }
        try await TestServer.with(stateDirectory: state, provider: provider, configure: { $0.artworkAllowPlainHTTP = true }) { server in
            let asking = try await FaultCars.linked(server)
            let browsing = try await FaultCars.linked(server)
            let covers = try await FaultCars.items(asking, "fault-covers")
            let key = try #require(covers.first { $0.id == "cover-good" }?.artworkKey)

            Files.injectWriteFault(ENOSPC, under: state)
            for _ in 0..<2 {
                let answer = try await FaultCars.artwork(asking, key: key)
                guard case .error(let error) = answer.outcome else {
                    Issue.record("expected an error while the disk is full, got \(String(describing: answer.outcome))")
                    return
                }
                #expect(error.code == .fetchFailed)
                #expect(error.message?.contains(String(cString: strerror(ENOSPC))) == true, "\(error.message ?? "-")")
                #expect(error.message?.contains(state) == false, "no server path goes to the car")
                #expect(!(try await FaultCars.items(browsing, "tab-albums")).isEmpty)
            }
            #expect(host.requests(to: "/good") == 2, "no backoff: the host was not at fault")
            let warnings = server.log.records.filter { $0.level >= .warning }.map(\.message)
            #expect(warnings.filter { $0.contains("artwork cache writes fail") }.count == 1, "\(warnings)")
            #expect(!warnings.contains { $0.contains("artwork failed") }, "\(warnings)")
            await server.server.core.artwork.settled()  // answered before its cache writes end
            #expect(!(try Files.list(state + "/artwork-cache")).contains { Files.isTemporary($0) })

            Files.clearWriteFault(under: state)
            guard case .image = try await FaultCars.artwork(asking, key: key).outcome else {
                Issue.record("the cover is served once there is room")
                return
            }
            try await server.waitForLog("artwork cache writes work again")
            await asking.abort()
            await browsing.abort()
        }
    }
}
