import DashportMessages
import Foundation
import Synchronization
import Testing
import DashportHeadUnit
import DashportTestSupport
import DashportServer

/// What the fault tests do with a Dashport car over TCP: link it, browse, ask for covers, play,
/// and read the answers. Every wait is for an event (the answer with the request's id), with a
/// generous bound that only a broken server reaches.
enum FaultCars {
    static let mediaChannel: UInt8 = 16
    private static let requestIds = Atomic<UInt32>(1_000_000)  // clear of the small ids tests pick by hand

    /// A request id no other request of the test process uses.
    static func nextId() -> UInt32 { requestIds.add(1, ordering: .relaxed).newValue }

    static func linked(_ server: TestServer) async throws -> TestCar {
        let car = try await TestCar.connect(to: server.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
        try await car.waitUntil("server hello") { $0.messages(on: mediaChannel).contains { $0.id == 0x8001 } }
        return car
    }

    static func rootId(_ car: TestCar) async throws -> String {
        let hello = try #require(await car.messages(on: mediaChannel).first { $0.id == 0x8001 })
        return try DashportMedia.ServerHello(serializedBytes: hello.body).rootId
    }

    /// The answer to a GET_CHILDREN of the first page.
    static func browse(_ car: TestCar, _ parent: String) async throws -> DashportMedia.BrowseResult {
        let id = nextId()
        let request = DashportMedia.GetChildren(requestId: id, parentId: parent, page: 0, pageSize: 50)
        await car.sendUnchecked(channel: mediaChannel, messageId: 0x8003, body: request.serializedBytes())
        return try await answer(car, id, messageId: 0x8006, "children of \(parent)", DashportMedia.BrowseResult.init(serializedBytes:))
    }

    /// The items of `parent`; records an issue when the answer is not a page of items.
    static func items(_ car: TestCar, _ parent: String) async throws -> [DashportMedia.BrowseItem] {
        let result = try await browse(car, parent)
        guard case .items(let page) = result.outcome else {
            Issue.record("expected the items of \(parent), got \(String(describing: result.outcome))")
            return []
        }
        return page.items
    }

    /// Asks for a cover without waiting; ``artworkAnswer(_:_:)`` waits for it.
    static func askArtwork(_ car: TestCar, key: String, size: UInt32 = 128) async -> UInt32 {
        let id = nextId()
        let request = DashportMedia.GetArtwork(requestId: id, key: key, width: size, height: size)
        await car.sendUnchecked(channel: mediaChannel, messageId: 0x8010, body: request.serializedBytes())
        return id
    }

    static func artworkAnswer(_ car: TestCar, _ id: UInt32) async throws -> DashportMedia.ArtworkResult {
        try await answer(car, id, messageId: 0x8011, "cover \(id)", DashportMedia.ArtworkResult.init(serializedBytes:))
    }

    static func artwork(_ car: TestCar, key: String, size: UInt32 = 128) async throws -> DashportMedia.ArtworkResult {
        try await artworkAnswer(car, await askArtwork(car, key: key, size: size))
    }

    /// PLAY_FROM_MEDIA_ID, waiting for its answer.
    static func play(_ car: TestCar, _ mediaId: String) async throws -> DashportMedia.CommandResult {
        let id = nextId()
        let play = DashportMedia.PlayFromMediaId(requestId: id, mediaId: mediaId)
        await car.sendUnchecked(channel: mediaChannel, messageId: 0x8008, body: play.serializedBytes())
        return try await answer(car, id, messageId: 0x800B, "play \(mediaId)", DashportMedia.CommandResult.init(serializedBytes:))
    }

    /// A playback command, waiting for its answer.
    static func command(_ car: TestCar, _ command: DashportMedia.PlaybackCommand.Command) async throws -> DashportMedia.CommandResult {
        let id = nextId()
        let request = DashportMedia.PlaybackCommand(requestId: id, command: command)
        await car.sendUnchecked(channel: mediaChannel, messageId: 0x800A, body: request.serializedBytes())
        return try await answer(car, id, messageId: 0x800B, "command \(id)", DashportMedia.CommandResult.init(serializedBytes:))
    }

    private static func answer<Answer: Sendable & HasRequestId>(
        _ car: TestCar, _ id: UInt32, messageId: UInt16, _ what: String,
        _ decode: @escaping @Sendable ([UInt8]) throws -> Answer
    ) async throws -> Answer {
        try await car.waitUntil(what, timeout: .seconds(60)) { car in
            car.messages(on: mediaChannel).contains { $0.id == messageId && (try? decode($0.body))?.requestId == id }
        }
        return try #require(
            await car.messages(on: mediaChannel).lazy
                .filter { $0.id == messageId }.compactMap { try? decode($0.body) }.first { $0.requestId == id })
    }
}

/// The answers that echo a request id.
protocol HasRequestId { var requestId: UInt32 { get } }
extension DashportMedia.BrowseResult: HasRequestId {}
extension DashportMedia.ArtworkResult: HasRequestId {}
extension DashportMedia.CommandResult: HasRequestId {}

/// Every regular file under `directory` (recursively, relative paths) with its bytes.
func snapshot(_ directory: String) -> [String: Data] {
    var files: [String: Data] = [:]
    guard let walker = FileManager.default.enumerator(atPath: directory) else { return files }
    while let name = walker.nextObject() as? String {
        let path = directory + "/" + name
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let data = FileManager.default.contents(atPath: path)
        else { continue }
        files[name] = data
    }
    return files
}
