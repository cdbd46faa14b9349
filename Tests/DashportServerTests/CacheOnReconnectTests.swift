import DashportTestSupport
import Foundation
import Synchronization
import Testing
import DashportBrowse
import DashportMessages
@testable import DashportServer

/// A provider the test switches between up (with a given tree) and down (throws).
final class SwitchableProvider: BrowseProvider {
    struct Down: Error {}
    private let tree: Mutex<[String: [BrowseItem]]?>

    init(_ tree: [String: [BrowseItem]]?) { self.tree = Mutex(tree) }

    func set(_ tree: [String: [BrowseItem]]?) { self.tree.withLock { $0 = tree } }

    func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        guard let tree = tree.withLock({ $0 }) else { throw Down() }
        let all = tree[parentId] ?? []
        let start = min(all.count, page * pageSize)
        return Array(all[start..<min(all.count, start + pageSize)])
    }

    func item(id: String) async throws -> BrowseItem? {
        guard let tree = tree.withLock({ $0 }) else { throw Down() }
        return tree.values.joined().first { $0.id == id }
    }

    static func library(tabATracks: [String]) -> [String: [BrowseItem]] {
        [
            BrowseItem.rootId: ["A", "B", "C", "D"].map { BrowseItem(id: "tab-\($0)", title: "Tab \($0)", browsable: true) },
            "tab-A": tabATracks.map { BrowseItem(id: "track-\($0)", title: "Track \($0)", playable: true, durationMs: 60_000) },
            "tab-B": [BrowseItem(id: "track-b1", title: "B one", playable: true, durationMs: 60_000)],
        ]
    }
}

/// The disk cache through the whole stack: a car reconnecting while the provider is down gets the
/// cached tabs at once, and a children-changed push once the provider is back with new content.
@Suite("Browse cache on reconnect over TCP", .serialized)
struct CacheOnReconnectTests {
    @Test func cachedTabsFirstThenTheRefreshAndAChildrenChangedPush() async throws {
        let provider = SwitchableProvider(SwitchableProvider.library(tabATracks: ["1", "2"]))
        let first = try await TestServer.start(provider: provider)
        let car = try await TestCar.connect(to: first.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
        try await car.waitUntil("server hello") { $0.messages(on: 16).contains { $0.id == 0x8001 } }
        let walker = MediaChannelOverTCPTests()
        #expect(try await walker.children(car, of: BrowseItem.rootId, requestId: 1).map(\.id) == ["tab-A", "tab-B", "tab-C", "tab-D"])
        #expect(try await walker.children(car, of: "tab-A", requestId: 2).map(\.id) == ["track-1", "track-2"])
        await car.abort()
        await first.stop(keepingState: true)

        // The server restarts while the provider is down.
        provider.set(nil)
        try await TestServer.with(stateDirectory: first.stateDirectory, provider: provider) { second in
            let again = try await TestCar.connect(to: second.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
            try await again.waitUntil("server hello") { $0.messages(on: 16).contains { $0.id == 0x8001 } }
            #expect(
                try await walker.children(again, of: BrowseItem.rootId, requestId: 1).map(\.id) == ["tab-A", "tab-B", "tab-C", "tab-D"])
            #expect(try await walker.children(again, of: "tab-A", requestId: 2).map(\.id) == ["track-1", "track-2"])

            // The provider comes back with tab A changed: the car is told, and a fresh browse shows it.
            provider.set(SwitchableProvider.library(tabATracks: ["1", "2", "3"]))
            try await again.waitUntil("children changed for tab A", timeout: .seconds(30)) { car in
                car.messages(on: 16).contains {
                    $0.id == 0x8007 && (try? DashportMedia.ChildrenChanged(serializedBytes: $0.body))?.parentId == "tab-A"
                }
            }
            #expect(try await walker.children(again, of: "tab-A", requestId: 3).map(\.id) == ["track-1", "track-2", "track-3"])
            let changed = await again.messages(on: 16).filter { $0.id == 0x8007 }
                .compactMap { try? DashportMedia.ChildrenChanged(serializedBytes: $0.body).parentId }
            #expect(!changed.contains("tab-B"), "tab B did not change, so it is not pushed")
            await again.abort()
        }
    }
}
