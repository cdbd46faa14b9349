import DashportTestSupport
import Foundation
import Synchronization
import Testing
import DashportBrowse
import DashportHeadUnit
import DashportMessages
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

    func browse(_ car: TestCar, _ parent: String, requestId: UInt32, timeout: Duration = .seconds(40)) async throws -> DashportMedia.BrowseResult {
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

    func sessionFile(_ server: TestServer) -> String { server.stateDirectory + "/session/session.json" }

    @Test func aProviderThatThrowsHangsOrFloodsHurtsOnlyThoseAnswers() async throws {
        try await TestServer.with(provider: try Self.provider()) { server in
            let healthy = try await linkedDashportCar(server)
            let faulty = try await linkedDashportCar(server)
            let reference = try await checkHealthy(healthy, requestId: 1, expected: nil)

            // Throws: an error (or an empty list), never a hang; logged once, naming the cause.
            let thrown = try await browse(faulty, "fault-throws", requestId: 1)
            if case .items(let page) = thrown.outcome { #expect(page.items.isEmpty) }
            _ = try await checkHealthy(healthy, requestId: 2, expected: reference)
            #expect(server.log.records.filter { $0.message.contains(FaultyProvider.failure) }.count == 1,
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
            #expect(server.log.records.filter { $0.message.contains("did not answer within") }.count == 1)
            _ = try await checkHealthy(healthy, requestId: 5, expected: reference)
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
            let cacheLines = server.log.records.filter { $0.message.contains("browse-cache") || $0.metadata.contains { $0.1.contains("browse-cache") } }
            #expect(!cacheLines.isEmpty, "the cache failure is logged with its cause")
            await first.abort()
            await second.abort()
        }
    }

    @Test func aCarThatVanishesMidMessageOrTricklesHurtsNoOne() async throws {
        try await TestServer.with(configure: { $0.handshakeTimeoutSeconds = 2 }) { server in
            let healthy = try await linkedDashportCar(server)
            let reference = try await checkHealthy(healthy, requestId: 1, expected: nil)

            // Half of a 1000-byte frame, then gone.
            let vanishing = try await linkedDashportCar(server)
            await vanishing.writeRaw([Self.mediaChannel, 0x0B, 0x03, 0xE8] + [UInt8](repeating: 0x55, count: 500))
            await vanishing.abort()
            _ = try await checkHealthy(healthy, requestId: 2, expected: reference)

            // One byte a second of a VERSION_REQUEST: closed at the handshake deadline, nobody waits.
            let trickle = try await TCPClient.connect(to: server.server.address)
            let closed = ClosedFlag()
            trickle.start { event in if case .closed = event { closed.set() } }
            let versionRequest: [UInt8] = [0x00, 0x03, 0x00, 0x06, 0x00, 0x01, 0x00, 0x01, 0x00, 0x06]
            for byte in versionRequest where !closed.isSet {
                trickle.write([byte])
                _ = try await checkHealthy(healthy, requestId: 3, expected: reference)
                try await Task.sleep(for: .seconds(1))
            }
            try await eventually("the trickling peer to be closed by the handshake deadline") { closed.isSet }
            _ = try await checkHealthy(healthy, requestId: 4, expected: reference)
            #expect(!(await healthy.transportClosed))
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
        _ = try await browse(car, tab.id, requestId: 2)
        _ = try await browse(car, "fault-throws", requestId: 3)
        await car.writeRaw([Self.mediaChannel, 0x0B, 0x7F, 0xFF, 0x01])
        await car.abort()
        await first.stop(keepingState: true)
        let saved = try? Data(contentsOf: URL(fileURLWithPath: sessionFile(first)))

        try await TestServer.with(stateDirectory: directory) { second in
            #expect(!second.log.records.contains { $0.message.contains("session restore: corrupt") })
            if let saved {
                let current = try Data(contentsOf: URL(fileURLWithPath: sessionFile(second)))
                #expect(current == saved)
            }
        }
    }
}

/// A flag set from a transport callback and read by the test.
final class ClosedFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}
