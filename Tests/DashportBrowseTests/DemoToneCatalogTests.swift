// Tests/DashportBrowseTests/DemoToneCatalogTests.swift - the demo library's tones (extras.toneHz).

import DashportTestSupport
import Testing
@testable import DashportBrowse

@Suite struct DemoToneCatalogTests {
    /// Every item reachable from the root, each once (a locked show's error screen has no children).
    static func everyItem(_ provider: CatalogProvider) async throws -> [BrowseItem] {
        var seen: Set<String> = [BrowseItem.rootId]
        var pending = [BrowseItem.rootId]
        var items: [BrowseItem] = []
        while let parent = pending.popLast() {
            let children = (try? await provider.children(of: parent, page: 0, pageSize: 1000)) ?? []
            for child in children where seen.insert(child.id).inserted {
                items.append(child)
                if child.browsable { pending.append(child.id) }
            }
        }
        return items
    }

    @Test func everyDemoTrackHasItsOwnToneFarFromEveryOther() async throws {
        let items = try await Self.everyItem(try Fixtures.demoProvider())
        let tracks = items.filter { $0.playable && !$0.browsable && $0.mediaType == .music }
        #expect(tracks.count == 20)
        var tones: [Double] = []
        for track in tracks {
            let text = try #require(track.metadata?.extras?["toneHz"], "\(track.id) has no toneHz")
            let hz = try #require(Double(text), "\(track.id): toneHz '\(text)' is not a number")
            #expect((200...2000).contains(hz), "\(track.id): \(hz) Hz")
            tones.append(hz)
        }
        let sorted = tones.sorted()
        #expect(Set(sorted).count == tracks.count)
        for (low, high) in zip(sorted, sorted.dropFirst()) {
            #expect(high - low >= 60, "\(low) Hz and \(high) Hz are too close to tell apart")
        }
        // Podcasts and radio have no tone of their own (the player derives one from the id).
        #expect(
            items.filter { $0.mediaType == .podcastEpisode || $0.mediaType == .radio }.allSatisfy {
                $0.metadata?.extras?["toneHz"] == nil
            })
    }
}
