import DashportTestSupport
import Foundation
import Synchronization
import Testing
import DashportBrowse
import DashportFiles
import DashportHeadUnit
import DashportMessages
import DashportSession
import DashportTransport
import DashportLog
@testable import DashportServer

/// Fault injection (issue 11): a provider that throws, hangs or answers a million items, a cache
/// directory that cannot be written, a car that vanishes mid-message or sends one byte a second.
/// Each time another car keeps being answered correctly, the persisted session stays intact, and
/// the fault is logged once with its cause. Nothing here depends on speed: every wait is for an
/// event, with a generous bound.
@Suite(.serialized) struct FaultInjectionOverTCPTests {
    static let mediaChannel: UInt8 = 16

    /// The demo library, except for three parents: one throws, one hangs (until cancelled, up to a
    /// minute), one answers a million items.
    struct FaultyProvider: BrowseProvider {
        let demo: CatalogProvider
        static let failure = "the music server exploded"

        struct Failure: Error, CustomStringConvertible {
            var description: String { FaultyProvider.failure }
        }

        func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
            switch parentId {
            case "fault-throws": throw Failure()
            case "fault-hangs":
                try await Task.sleep(for: .seconds(60))  // cancellable: the test never waits for it
                return []
            case "fault-million":
                return (0..<1_000_000).map { BrowseItem(id: "m\($0)", title: "Item \($0)", playable: true) }
            default:
                return try await demo.children(of: parentId, page: page, pageSize: pageSize)
            }
        }

        func item(id: String) async throws -> BrowseItem? { try await demo.item(id: id) }
    }

    static func provider() throws -> FaultyProvider {
        FaultyProvider(demo: try CatalogProvider(contentsOf: try DemoLibrary.catalogPath()))
    }

    func browse(_ car: TestCar, _ parent: String, requestId: UInt32, timeout: Duration = .seconds(40)) async throws
        -> DashportMedia.BrowseResult
    {
        let request = DashportMedia.GetChildren(requestId: requestId, parentId: parent, page: 0, pageSize: 50)
        await car.sendUnchecked(channel: Self.mediaChannel, messageId: 0x8003, body: request.serializedBytes())
        try await car.waitUntil("the answer to \(parent)", timeout: timeout) { Self.answer($0, requestId) != nil }
        return try #require(await Self.answer(car, requestId))
    }

    static func answer(_ car: isolated TestCar, _ requestId: UInt32) -> DashportMedia.BrowseResult? {
        car.messages(on: mediaChannel).lazy.filter { $0.id == 0x8006 }
            .compactMap { try? DashportMedia.BrowseResult(serializedBytes: $0.body) }
            .first { $0.requestId == requestId }
    }

    func linkedDashportCar(_ server: TestServer) async throws -> TestCar {
        let car = try await TestCar.connect(to: server.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
        try await car.waitUntil("server hello") { $0.messages(on: Self.mediaChannel).contains { $0.id == 0x8001 } }
        return car
    }

    /// The root id from the car's SERVER_HELLO.
    func rootId(_ car: TestCar) async throws -> String {
        let hello = try #require(await car.messages(on: Self.mediaChannel).first { $0.id == 0x8001 })
        return try DashportMedia.ServerHello(serializedBytes: hello.body).rootId
    }

    /// The healthy car's view: the root's tabs, the same each time.
    func checkHealthy(_ car: TestCar, requestId: UInt32, expected: DashportMedia.BrowseResult?) async throws -> DashportMedia.BrowseResult {
        var result = try await browse(car, try await rootId(car), requestId: requestId)
        result.requestId = 0
        guard case .items(let page) = result.outcome, page.items.count == 4 else {
            Issue.record("the healthy car got \(String(describing: result.outcome))")
            return result
        }
        if let expected { #expect(result == expected) }
        return result
    }

    /// What a session file holds: the queue, the item, the status and the position.
    static func contents(_ data: Data) throws -> NSDictionary {
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let snapshot = try #require(object["snapshot"] as? [String: Any])
        let state = try #require(snapshot["playbackState"] as? [String: Any])
        let position = try #require(state["position"] as? [String: Any])
        return [
            "queue": snapshot["queue"] ?? "-", "mediaItem": snapshot["mediaItem"] ?? "-",
            "status": state["status"] ?? "-", "position": position["valueMs"] ?? "-",
        ] as NSDictionary
    }

    func sessionFile(_ server: TestServer) -> String { server.stateDirectory + "/session/session.json" }

    /// Plays and pauses a track so there is a session on disk, and returns what the browse cache
    /// and the session hold now.
    func persistSomething(_ server: TestServer, _ car: TestCar) async throws -> [String: [String: Data]] {
        let album = try #require(try await FaultCars.items(car, "tab-albums").first)
        let track = try #require(try await FaultCars.items(car, album.id).first { $0.playable })
        #expect(try await FaultCars.play(car, track.id).accepted)
        #expect(try await FaultCars.command(car, .pause(DashportMedia.Empty())).accepted)
        try await eventually("the session is written") { FileManager.default.fileExists(atPath: sessionFile(server)) }
        // The pause's write may still be running (a temporary file beside the play's session.json):
        // the snapshot is of what is on disk once every write asked for has finished.
        await server.server.core.session.writesSettled()
        let directories = [server.stateDirectory + "/browse-cache", server.stateDirectory + "/session"]
        return Dictionary(uniqueKeysWithValues: directories.map { ($0, snapshot($0)) })
    }

    /// Every file saved by ``persistSomething(_:_:)`` is still there, byte for byte, and no
    /// temporary file is left.
    func expectIntact(_ stores: [String: [String: Data]], sourceLocation: SourceLocation = #_sourceLocation) {
        for (directory, before) in stores {
            let now = snapshot(directory)
            #expect(!before.isEmpty, "\(directory) had files", sourceLocation: sourceLocation)
            for (name, bytes) in before { #expect(now[name] == bytes, "\(directory)/\(name)", sourceLocation: sourceLocation) }
            #expect(!now.keys.contains { Files.isTemporary(($0 as NSString).lastPathComponent) }, sourceLocation: sourceLocation)
        }
    }

    @Test func aProviderThatThrowsHangsOrFloodsHurtsOnlyThoseAnswers() async throws {
        try await TestServer.with(provider: try Self.provider()) { server in
            let healthy = try await linkedDashportCar(server)
            let faulty = try await linkedDashportCar(server)
            let reference = try await checkHealthy(healthy, requestId: 1, expected: nil)
            let stores = try await persistSomething(server, healthy)

            // Throws: an error (or an empty list), never a hang; logged once, naming the cause.
            let thrown = try await browse(faulty, "fault-throws", requestId: 1)
            if case .items(let page) = thrown.outcome { #expect(page.items.isEmpty) }
            _ = try await checkHealthy(healthy, requestId: 2, expected: reference)
            #expect(
                server.log.records.filter { $0.message.contains(FaultyProvider.failure) }.count == 1,
                "\(server.log.records.filter { $0.message.contains(FaultyProvider.failure) }.map(\.message))")

            // A million items: one page of at most the page size, and the total says how many.
            let million = try await browse(faulty, "fault-million", requestId: 2)
            guard case .items(let page) = million.outcome else {
                Issue.record("expected a page, got \(String(describing: million.outcome))")
                return
            }
            #expect(page.items.count <= 50 && !page.items.isEmpty)
            _ = try await checkHealthy(healthy, requestId: 3, expected: reference)

            // Hangs: the healthy car is answered meanwhile; the faulty one gets an answer at the
            // provider deadline, not after the minute, and the log names the parent that timed out.
            async let hung = browse(faulty, "fault-hangs", requestId: 3)
            _ = try await checkHealthy(healthy, requestId: 4, expected: reference)
            let late = try await hung
            #expect(late.requestId == 3)
            _ = try await checkHealthy(healthy, requestId: 5, expected: reference)

            // One warning per fault, naming it (the million items are a notice: cut, not a fault),
            // and the cache and the session as they were.
            let warnings = server.log.records.filter { $0.level >= .warning }.map(\.message)
            #expect(warnings.count == 2, "\(warnings)")
            #expect(warnings.filter { $0.contains("no answer for 'fault-hangs'") }.count == 1, "\(warnings)")
            expectIntact(stores)
            await faulty.abort()
            await healthy.abort()
        }
    }

    @Test func anUnwritableCacheDirectoryIsLoggedAndBrowsingGoesOn() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-fault-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // A file where the caches' directories belong: every write into them fails (as on a full or
        // read-only disk; the tests run as root, which permissions would not stop).
        for name in ["browse-cache", "artwork-cache"] {
            #expect(FileManager.default.createFile(atPath: directory + "/" + name, contents: Data("not a directory".utf8)))
        }
        try await TestServer.with(stateDirectory: directory) { server in
            let first = try await linkedDashportCar(server)
            let second = try await linkedDashportCar(server)
            let reference = try await checkHealthy(first, requestId: 1, expected: nil)
            _ = try await checkHealthy(second, requestId: 1, expected: reference)
            _ = try await checkHealthy(first, requestId: 2, expected: reference)
            #expect(try String(contentsOfFile: directory + "/browse-cache", encoding: .utf8) == "not a directory")
            // Once for each cache, with its cause, however many writes failed.
            let warnings = server.log.records.filter { $0.level >= .warning }
            let cacheLines = warnings.filter {
                $0.message.contains("browse-cache") || $0.metadata.contains { $0.1.contains("browse-cache") }
            }
            #expect(cacheLines.count == 1, "\(cacheLines.map(\.message))")
            #expect(cacheLines.allSatisfy { $0.message.contains("not a directory") }, "\(cacheLines.map(\.message))")
            let artworkKey = try #require(try await FaultCars.items(first, "tab-albums").first?.artworkKey)
            guard case .image = try await FaultCars.artwork(second, key: artworkKey).outcome else {
                Issue.record("a cover is served without its cache")
                return
            }
            let artworkLines = server.log.records.filter { $0.level >= .warning && $0.message.contains("artwork cache") }
            #expect(artworkLines.count == 1, "\(artworkLines.map(\.message))")
            await first.abort()
            await second.abort()
        }
    }

    /// The server runs on a manual clock: the cars' handshakes take what the machine needs, and
    /// the trickling peer's handshake deadline passes when the test moves time, not before.
    @Test func aCarThatVanishesMidMessageOrTricklesHurtsNoOne() async throws {
        let clock = ManualClock()
        try await TestServer.with(clock: clock, configure: { $0.handshakeTimeoutSeconds = 2 }) { server in
            let healthy = try await linkedDashportCar(server)
            let reference = try await checkHealthy(healthy, requestId: 1, expected: nil)
            let stores = try await persistSomething(server, healthy)

            // Half of a 1000-byte frame, then gone.
            let vanishing = try await linkedDashportCar(server)
            await vanishing.writeRaw([Self.mediaChannel, 0x0B, 0x03, 0xE8] + [UInt8](repeating: 0x55, count: 500))
            await vanishing.abort()
            _ = try await checkHealthy(healthy, requestId: 2, expected: reference)

            // One byte a (manual) second of a VERSION_REQUEST: closed at the handshake deadline,
            // nobody waits. The server is given its accept first (the admission counts the peer),
            // so the deadline runs from before the first byte.
            let pendingBefore = server.server.context.admission.pendingCount
            let trickle = try await TCPClient.connect(to: server.server.address)
            let closed = ClosedFlag()
            trickle.start { event in if case .closed = event { closed.set() } }
            try await eventually("the trickling peer accepted") { server.server.context.admission.pendingCount == pendingBefore + 1 }
            let versionRequest: [UInt8] = [0x00, 0x03, 0x00, 0x06, 0x00, 0x01, 0x00, 0x01, 0x00, 0x06]
            var sent = 0
            for byte in versionRequest.prefix(4) where !closed.isSet {
                trickle.write([byte])
                sent += 1
                _ = try await checkHealthy(healthy, requestId: 3, expected: reference)
                await clock.advance(by: .seconds(1))
            }
            // Its connection task may have armed the deadline a (manual) second or two late.
            try await eventually("the trickling peer to be closed by the handshake deadline") {
                if !closed.isSet { await clock.advance(by: .seconds(1)) }
                return closed.isSet
            }
            #expect(sent >= 2, "still trickling when the deadline passed")
            _ = try await checkHealthy(healthy, requestId: 4, expected: reference)
            #expect(!(await healthy.transportClosed))
            // One warning per faulty peer, with its cause; the cache and the session as they were.
            let warnings = server.log.records.filter { $0.level >= .warning }.map(\.message)
            #expect(warnings.count == 2, "\(warnings)")
            // The cause is what the socket said (a reset, or a broken pipe if a ping went out first).
            #expect(warnings.filter { $0.contains("connection lost during running: ") }.count == 1, "\(warnings)")
            #expect(warnings.filter { $0.contains("handshake deadline passed") }.count == 1, "\(warnings)")
            expectIntact(stores)
            trickle.abort()
            await healthy.abort()
        }
    }

    @Test func thePersistedSessionSurvivesFaultyCars() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-fault-\(UUID().uuidString)").path
        let first = try await TestServer.start(stateDirectory: directory, provider: try Self.provider())
        let car = try await linkedDashportCar(first)
        let tabs = try await browse(car, try await rootId(car), requestId: 1)
        guard case .items(let page) = tabs.outcome, let tab = page.items.first else {
            Issue.record("no tabs")
            return
        }
        let albums = try await browse(car, "tab-albums", requestId: 2)
        guard case .items(let albumPage) = albums.outcome, let album = albumPage.items.first else {
            Issue.record("no albums under \(tab.id)")
            return
        }
        let tracks = try await browse(car, album.id, requestId: 4)
        guard case .items(let trackPage) = tracks.outcome, let track = trackPage.items.first(where: { $0.playable }) else {
            Issue.record("no tracks in \(album.id)")
            return
        }
        #expect(try await FaultCars.play(car, track.id).accepted)
        #expect(try await FaultCars.command(car, .pause(DashportMedia.Empty())).accepted)
        _ = try await browse(car, "fault-throws", requestId: 3)
        await car.writeRaw([Self.mediaChannel, 0x0B, 0x7F, 0xFF, 0x01])
        await car.abort()
        await first.stop(keepingState: true)
        let saved = try #require(try? Data(contentsOf: URL(fileURLWithPath: sessionFile(first))), "the session was saved")

        try await TestServer.with(stateDirectory: directory) { second in
            #expect(second.log.records.contains { $0.message.contains("session restore: restored") })
            // Restoring writes the session again (a new save time and clock instant; sets in hash
            // order); what it holds is the same: queue, item, status and position.
            let current = try Data(contentsOf: URL(fileURLWithPath: sessionFile(second)))
            #expect(try Self.contents(current) == Self.contents(saved))
        }
    }
}

/// A flag set from a transport callback and read by the test.
final class ClosedFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}
