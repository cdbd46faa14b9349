// Tests/DashportBrowseTests/BrowseCoreLateAnswerTests.swift - a provider's answer after the car's timeout, and covers per page.

import DashportClock
import DashportTestSupport
import Foundation
import Synchronization
import Testing
@testable import DashportBrowse

@Suite(.timeLimit(.minutes(1))) struct BrowseCoreLateAnswerTests {
    /// Waits for the children-changed of `parentId`; every notification before it is returned too.
    static func untilChanged(_ parentId: String, in stream: AsyncStream<BrowseNotification>) async -> [BrowseNotification] {
        var seen: [BrowseNotification] = []
        for await notification in stream {
            seen.append(notification)
            if notification == .childrenChanged(parentId: parentId) { break }
        }
        return seen
    }

    @Test func aCarGivenNoListIsPushedWhenTheProviderAnswers() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let provider = FakeProvider(tree: ["recent": [track("song-1"), track("song-2")]])
        provider.hold()
        let clock = ManualClock()
        let core = makeCore(provider, cache: BrowseCache(directory: folder.path), clock: clock)
        let notifications = await core.subscribe()

        async let first = core.children(of: "recent", page: 0, pageSize: 10, for: .full)
        await clock.waitForSleeper(dueAt: .seconds(10))  // the provider timeout: nothing is cached
        await clock.advance(by: .seconds(10))
        #expect(await first == .unavailable)
        provider.release()
        // Without the push the car's list stays empty until it asks again by itself (this waits out the time limit).
        _ = await Self.untilChanged("recent", in: notifications)
        // Cached as answered, so a car gets it at once even while the core counts the provider as slow.
        #expect(await core.cache?.children(of: "recent")?.map(\.id) == ["song-1", "song-2"])
        #expect(await core.children(of: "recent", page: 0, pageSize: 10, for: .full).ids == ["song-1", "song-2"])
    }

    /// 250 rows without covers; the provider gives covers per row asked.
    final class CoveringProvider: BrowseProvider {
        let asked = Mutex<[[String]]>([])
        func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
            parentId == "albums" ? (0..<250).map { tab("album-\($0)") } : []
        }
        func item(id: String) async throws -> BrowseItem? { nil }
        func artwork(for rows: [BrowseItem], in parentId: String) async -> [String: String] {
            asked.withLock { $0.append(rows.map(\.id)) }
            var found: [String: String] = [:]
            for row in rows where row.id != "album-150" { found[row.id] = "file:///covers/\(row.id).jpg" }
            return found
        }
    }

    @Test func theRowsOfThePageACarAsksForGetTheProvidersCovers() async {
        let provider = CoveringProvider()
        let core = makeCore(provider)
        let page = await core.children(of: "albums", page: 1, pageSize: 100, for: .full)
        #expect(page.ids == (100..<200).map { "album-\($0)" })
        #expect(page.total == 250)
        #expect(page.items.filter { $0.artworkUri == nil }.map(\.id) == ["album-150"])
        #expect(page.items.first?.artworkUri == "file:///covers/album-100.jpg")
        #expect(provider.asked.withLock { $0 } == [(100..<200).map { "album-\($0)" }], "only the page's rows are looked up")
    }
}
