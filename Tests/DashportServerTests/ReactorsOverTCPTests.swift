import DashportBrowse
import DashportLog
import DashportMessages
import DashportTestSupport
import DashportTransport
import Foundation
import Testing

@testable import DashportServer

/// `--reactors N` over real TCP (issue 22, item 1): cars spread over several reactors still share
/// one session and one browse state, a catalog reload under load leaves every car consistent, and
/// one reactor serves every car as before.
@Suite("Reactors over TCP", .serialized)
struct ReactorsOverTCPTests {
    static let media = MediaChannelOverTCPTests.mediaChannel
    let walker = MediaChannelOverTCPTests()

    /// Connects `count` Dashport cars one after the other, each up to its server hello.
    static func connect(_ count: Int, to server: TestServer) async throws -> [TestCar] {
        var cars: [TestCar] = []
        for _ in 0..<count {
            let car = try await TestCar.connect(to: server.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
            try await car.waitUntil("server hello") { $0.messages(on: media).contains { $0.id == 0x8001 } }
            cars.append(car)
        }
        return cars
    }

    /// The reactor each car's connection is on, in connection order.
    static func reactors(_ server: TestServer) -> [Int?] {
        server.server.connectedCars.sorted { $0.id < $1.id }.map(\.reactor)
    }

    static func changed(_ car: isolated TestCar, _ parent: String) -> Bool {
        car.messages(on: media).contains {
            $0.id == 0x8007 && (try? DashportMedia.ChildrenChanged(serializedBytes: $0.body))?.parentId == parent
        }
    }

    @Test func carsOnDifferentReactorsShareOneSessionAndOneBrowseState() async throws {
        try await TestServer.with(configure: { $0.reactors = 2 }) { server in
            #expect(server.server.reactorCount == 2)
            let cars = try await Self.connect(2, to: server)
            // Least-loaded with turns on a tie: the second car goes to the other reactor.
            #expect(Self.reactors(server) == [0, 1])
            #expect(server.server.connectionsPerReactor == [1, 1])
            // Each car's log lines name its reactor.
            let connectedOn = server.log.records.filter { $0.message == "car connected" }
                .compactMap { record in record.metadata.first { $0.0 == "reactor" }?.1 }
            #expect(connectedOn.sorted() == ["0", "1"])
            let (first, second) = (cars[0], cars[1])

            // One browse state: the same tabs and lists, each reactor memoising them in its own shard.
            let tabs = try await walker.children(first, of: BrowseItem.rootId, requestId: 1)
            #expect(try await walker.children(second, of: BrowseItem.rootId, requestId: 1).map(\.id) == tabs.map(\.id))
            let memo = server.server.core.answers
            #expect(memo.shards.count == 2)
            #expect(memo.shard(0).keys.contains { $0.parentId == BrowseItem.rootId })
            #expect(memo.shard(1).keys.contains { $0.parentId == BrowseItem.rootId })
            let albumsTab = try #require(tabs.first { $0.title.lowercased().contains("album") })
            let albums = try await walker.children(second, of: albumsTab.id, requestId: 2)
            #expect(try await walker.children(first, of: albumsTab.id, requestId: 2).map(\.id) == albums.map(\.id))

            // One session: a play from the car on reactor 1 reaches the car on reactor 0, a pause
            // from the car on reactor 0 reaches the car on reactor 1.
            let album = try #require(albums.first)
            let track = try #require(try await walker.children(second, of: album.id, requestId: 3).first { $0.playable })
            let play = DashportMedia.PlayFromMediaId(requestId: 4, mediaId: track.id)
            await second.sendUnchecked(channel: Self.media, messageId: 0x8008, body: play.serializedBytes())
            for car in cars {
                try await car.waitUntil("playing \(track.title)") { car in
                    let messages = car.messages(on: Self.media)
                    let item = messages.last { $0.id == 0x800D }
                        .flatMap { try? DashportMedia.MediaItemState(serializedBytes: $0.body) }?.item?.id
                    let status = messages.last { $0.id == 0x800C }
                        .flatMap { try? DashportMedia.PlaybackState(serializedBytes: $0.body) }?.status
                    return item == track.id && status == .playing
                }
            }
            let pause = DashportMedia.PlaybackCommand(requestId: 5, command: .pause(DashportMedia.Empty()))
            await first.sendUnchecked(channel: Self.media, messageId: 0x800A, body: pause.serializedBytes())
            for car in cars {
                try await car.waitUntil("paused") { car in
                    car.messages(on: Self.media).last { $0.id == 0x800C }
                        .flatMap { try? DashportMedia.PlaybackState(serializedBytes: $0.body) }?.status == .paused
                }
            }

            // One browse state: an invalidation reaches both reactors' cars and empties both shards.
            await server.server.core.browse.invalidate(albumsTab.id)
            let parent = albumsTab.id
            for car in cars {
                try await car.waitUntil("children changed for \(parent)") { Self.changed($0, parent) }
            }
            #expect(!memo.keys.contains { $0.parentId == parent })
            #expect(try await walker.children(first, of: parent, requestId: 6).map(\.id) == albums.map(\.id))
            for car in cars { await car.abort() }
        }
    }

    /// What one car saw of tab A while it asked for it again and again: each answer's ids, and
    /// whether the car had been told tab A changed before it sent that request.
    struct Answer: Sendable {
        var ids: [String]
        var askedAfterThePush: Bool
    }

    /// Six cars, three per reactor, ask for tab A back to back while the catalog is reloaded with
    /// a new tab A: every car is told, and every answer to a request sent after the car was told is
    /// the new list (no reactor's memo shard serves the old page after its car's push); every
    /// answer is one list or the other.
    @Test func aCatalogReloadUnderLoadLeavesEveryCarConsistent() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path + "/catalog.json"
        let (before, after) = (["a1", "a2"], ["a2", "a3", "a1"])
        try CatalogReloadOverTCPTests.save(CatalogReloadOverTCPTests.catalog(tabA: before), to: path)
        try await TestServer.with(configure: {
            $0.catalog = path
            $0.reactors = 2
        }) { server in
            let cars = try await Self.connect(6, to: server)
            #expect(Set(Self.reactors(server)) == [0, 1])
            #expect(server.server.connectionsPerReactor == [3, 3])
            let stop = Watched(false)
            let walker = self.walker
            let load = Task {
                try await withThrowingTaskGroup(of: [Answer].self) { group in
                    for car in cars {
                        group.addTask {
                            var answers: [Answer] = []
                            var requestId: UInt32 = 100
                            // Bounded: the test stops the load long before this many.
                            while !stop.value && answers.count < 2_000 {
                                let told = await Self.changed(car, "tab-a")
                                requestId += 1
                                let ids = try await walker.children(car, of: "tab-a", requestId: requestId).map(\.id)
                                answers.append(Answer(ids: ids, askedAfterThePush: told))
                            }
                            return answers
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            let progress = { @Sendable (car: TestCar) async -> Int in
                await car.messages(on: Self.media).filter { $0.id == 0x8006 }.count
            }
            // Under load: every car has had answers before the reload.
            var counts: [Int] = []
            for car in cars { counts.append(await progress(car)) }
            for (car, count) in zip(cars, counts) {
                try await car.waitUntil("three answers under load") {
                    $0.messages(on: Self.media).filter { $0.id == 0x8006 }.count >= count + 3
                }
            }

            try CatalogReloadOverTCPTests.save(CatalogReloadOverTCPTests.catalog(tabA: after), to: path)
            _ = await server.server.reloadCatalog(reason: "test")
            for car in cars {
                try await car.waitUntil("children changed for tab A", timeout: .seconds(60)) { Self.changed($0, "tab-a") }
            }
            // Every car asks a few more times after it was told.
            counts = []
            for car in cars { counts.append(await progress(car)) }
            for (car, count) in zip(cars, counts) {
                try await car.waitUntil("three answers after the push") {
                    $0.messages(on: Self.media).filter { $0.id == 0x8006 }.count >= count + 3
                }
            }
            stop.update { $0 = true }
            let seen = try await load.value
            #expect(seen.count == cars.count)
            for answers in seen {
                #expect(answers.allSatisfy { $0.ids == before || $0.ids == after })
                let afterThePush = answers.filter(\.askedAfterThePush)
                #expect(afterThePush.count >= 2)
                #expect(afterThePush.allSatisfy { $0.ids == after }, "\(afterThePush.map(\.ids))")
            }
            for car in cars { await car.abort() }
        }
    }

    /// `--reactors 1`: every car on reactor 0, as before there were more.
    @Test func oneReactorServesEveryCar() async throws {
        try await TestServer.with(configure: { $0.reactors = 1 }) { server in
            let cars = try await Self.connect(3, to: server)
            #expect(Self.reactors(server) == [0, 0, 0])
            #expect(server.server.connectionsPerReactor == [3])
            #expect(server.server.core.answers.shards.count == 1)
            var lists: [[String]] = []
            for car in cars { lists.append(try await walker.children(car, of: BrowseItem.rootId, requestId: 1).map(\.id)) }
            #expect(Set(lists).count == 1 && lists[0].count == 4)
            for car in cars { await car.abort() }
            try await eventually("the cars to leave") { server.server.connectionsPerReactor == [0] }
        }
    }
}
