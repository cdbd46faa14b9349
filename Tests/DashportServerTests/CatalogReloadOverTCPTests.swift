import DashportTestSupport
import Foundation
import Testing
import DashportBrowse
import DashportMessages
import DashportLog
@testable import DashportServer

/// A catalog edit reaches a connected car without a restart: the server sees the file change
/// (inotify), reloads it, and pushes children-changed for exactly the lists that changed; the car
/// asks again and gets the new content. A bad edit changes nothing.
@Suite("Catalog reload over TCP", .serialized)
struct CatalogReloadOverTCPTests {
    static func catalog(tabA: [String], tabATitle: String = "A") -> String {
        let tracks = ["a1", "a2", "a3"].map { #"{ "id": "\#($0)", "title": "Track \#($0)", "playable": true, "durationMs": 60000 }"# }
        let items =
            [
                #"{ "id": "tab-a", "title": "\#(tabATitle)", "browsable": true, "children": [\#(tabA.map { "\"\($0)\"" }.joined(separator: ","))] }"#,
                #"{ "id": "tab-b", "title": "B", "browsable": true, "children": ["a3"] }"#,
            ] + tracks
        return #"{ "format": "dashport.catalog", "version": 1, "root": ["tab-a", "tab-b"], "items": [\#(items.joined(separator: ","))] }"#
    }

    /// Saves like an editor that writes a temporary file and renames it over the catalog.
    static func save(_ json: String, to path: String) throws {
        try Data(json.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    static func pushes(_ car: TestCar) async -> [String] {
        await car.messages(on: MediaChannelOverTCPTests.mediaChannel).filter { $0.id == 0x8007 }
            .compactMap { try? DashportMedia.ChildrenChanged(serializedBytes: $0.body).parentId }
    }

    @Test func anEditReachesAConnectedCarAndABadEditChangesNothing() async throws {
        let folderDirectory = try TemporaryDirectory()
        defer { folderDirectory.remove() }
        let folder = folderDirectory.path
        let path = folder + "/catalog.json"
        try Self.save(Self.catalog(tabA: ["a1", "a2"]), to: path)
        try await TestServer.with(configure: { $0.catalog = path }) { server in
            let car = try await TestCar.connect(to: server.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
            try await car.waitUntil("server hello") { $0.messages(on: 16).contains { $0.id == 0x8001 } }
            let walker = MediaChannelOverTCPTests()
            #expect(try await walker.children(car, of: BrowseItem.rootId, requestId: 1).map(\.id) == ["tab-a", "tab-b"])
            #expect(try await walker.children(car, of: "tab-a", requestId: 2).map(\.id) == ["a1", "a2"])
            #expect(try await walker.children(car, of: "tab-b", requestId: 3).map(\.id) == ["a3"])

            // Edit tab A's list; tab B is untouched.
            try Self.save(Self.catalog(tabA: ["a2", "a3", "a1"]), to: path)
            try await car.waitUntil("children changed for tab A", timeout: .seconds(30)) { car in
                car.messages(on: 16).contains {
                    $0.id == 0x8007 && (try? DashportMedia.ChildrenChanged(serializedBytes: $0.body))?.parentId == "tab-a"
                }
            }
            #expect(try await walker.children(car, of: "tab-a", requestId: 4).map(\.id) == ["a2", "a3", "a1"])
            #expect(await Self.pushes(car) == ["tab-a"], "only the list that changed is pushed")

            // A tab's title is part of the root's list: the root is pushed, and shows it.
            try Self.save(Self.catalog(tabA: ["a2", "a3", "a1"], tabATitle: "A (new)"), to: path)
            try await car.waitUntil("children changed for the root", timeout: .seconds(30)) { car in
                car.messages(on: 16).contains {
                    $0.id == 0x8007 && (try? DashportMedia.ChildrenChanged(serializedBytes: $0.body))?.parentId == BrowseItem.rootId
                }
            }
            #expect(try await walker.children(car, of: BrowseItem.rootId, requestId: 5).map(\.title) == ["A (new)", "B"])

            // A bad edit is refused with the same error as at start; the previous catalog keeps serving.
            let before = await Self.pushes(car).count
            try Self.save(Self.catalog(tabA: ["a1", "ghost"]), to: path)
            let outcome = await server.server.reloadCatalog(reason: "test")  // the same path the watcher and SIGHUP take
            guard case .refused(let error) = outcome else {
                Issue.record("expected the edit to be refused, got \(String(describing: outcome))")
                return
            }
            // At the reference's place in the file: PATH:LINE:COLUMN: item ...
            #expect(
                error.description
                    == "\(path):\(error.line ?? 0):\(error.column ?? 0): item 'tab-a' refers to child 'ghost', which does not exist")
            #expect(error.line != nil && error.column != nil)
            #expect(server.log.contains(.error, "catalog reload refused, still serving the previous catalog: \(path):"))
            #expect(server.log.contains(.error, ": item 'tab-a' refers to child 'ghost'"))
            #expect(try await walker.children(car, of: "tab-a", requestId: 6).map(\.id) == ["a2", "a3", "a1"])
            #expect(await Self.pushes(car).count == before)
            await car.abort()
        }
    }

    /// The cache-on-reconnect path with the shipped provider: a server whose catalog is not loaded
    /// yet answers a car from the disk cache, then pushes what the catalog shows differently.
    @Test func aCatalogStillLoadingIsAnsweredFromTheCacheThenPushed() async throws {
        let folderDirectory = try TemporaryDirectory()
        defer { folderDirectory.remove() }
        let folder = folderDirectory.path
        let path = folder + "/catalog.json"
        try Self.save(Self.catalog(tabA: ["a1", "a2"]), to: path)
        let first = try await TestServer.start { $0.catalog = path }
        let car = try await TestCar.connect(to: first.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
        try await car.waitUntil("server hello") { $0.messages(on: 16).contains { $0.id == 0x8001 } }
        let walker = MediaChannelOverTCPTests()
        #expect(try await walker.children(car, of: BrowseItem.rootId, requestId: 1).map(\.id) == ["tab-a", "tab-b"])
        #expect(try await walker.children(car, of: "tab-a", requestId: 2).map(\.id) == ["a1", "a2"])
        await car.abort()
        await first.stop(keepingState: true)

        // While the server is down the catalog is edited; the next server's catalog is not in yet.
        try Self.save(Self.catalog(tabA: ["a1", "a2", "a3"]), to: path)
        let catalog = CatalogProvider(path: path)
        try await TestServer.with(stateDirectory: first.stateDirectory, provider: catalog, configure: { $0.catalog = path }) { second in
            let again = try await TestCar.connect(to: second.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
            try await again.waitUntil("server hello") { $0.messages(on: 16).contains { $0.id == 0x8001 } }
            #expect(try await walker.children(again, of: BrowseItem.rootId, requestId: 1).map(\.id) == ["tab-a", "tab-b"])
            #expect(try await walker.children(again, of: "tab-a", requestId: 2).map(\.id) == ["a1", "a2"], "from the cache")

            try catalog.load()
            try await again.waitUntil("children changed for tab A", timeout: .seconds(30)) { car in
                car.messages(on: 16).contains {
                    $0.id == 0x8007 && (try? DashportMedia.ChildrenChanged(serializedBytes: $0.body))?.parentId == "tab-a"
                }
            }
            #expect(try await walker.children(again, of: "tab-a", requestId: 3).map(\.id) == ["a1", "a2", "a3"])
            #expect(!(await Self.pushes(again)).contains(BrowseItem.rootId), "the root did not change")
            await again.abort()
        }
    }
}
