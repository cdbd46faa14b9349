import DashportTestSupport
import Foundation
import Testing

/// A catalog edit on the server's side reaches the page: the server watches its catalog file,
/// pushes childrenChanged, and the open list is drawn again with the new item.
extension WebPageInChromiumTests {
    @Test func aCatalogEditPushesChildrenChangedAndTheOpenListIsRedrawn() async throws {
        // The demo library copied (with its covers) where the test may rewrite it.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let demo = URL(fileURLWithPath: try WebPageStack.demoCatalog())
        try FileManager.default.copyItem(
            atPath: demo.deletingLastPathComponent().appendingPathComponent("covers").path, toPath: directory.file("covers"))
        let path = directory.file("catalog.json")
        let original = try Data(contentsOf: demo)
        try original.write(to: URL(fileURLWithPath: path))

        try await WebPageStack.with(catalog: path) { stack in
            let rows = try await stack.waitForList("tab-recent", count: 4)
            #expect(rows == ["nd-2", "album-quiet-hours", "album-harbour-sessions", "ep-rn-12"])
            let before = try await stack.eventCount()

            var catalog = try #require(try JSONSerialization.jsonObject(with: original) as? [String: Any])
            var items = try #require(catalog["items"] as? [[String: Any]])
            items.append(["id": "fresh-pressing", "title": "Fresh Pressing", "playable": true, "durationMs": 60_000, "mediaType": "music"])
            let recent = try #require(items.firstIndex { $0["id"] as? String == "tab-recent" })
            var children = try #require(items[recent]["children"] as? [Any])
            children.insert(["id": "fresh-pressing", "group": "Today"], at: 0)
            items[recent]["children"] = children
            catalog["items"] = items
            // Atomically (a new file renamed over the old), as an editor saves: the watcher sees one change.
            try JSONSerialization.data(withJSONObject: catalog).write(to: URL(fileURLWithPath: path), options: .atomic)

            let changed = try await stack.waitForEvent(
                "e.name === 'childrenChanged' && (e.data.parentId === undefined || e.data.parentId === 'tab-recent')",
                "childrenChanged for the Recent tab", after: before)
            #expect(changed["parentId"] == nil || changed["parentId"] == "tab-recent")
            let redrawn = try await stack.waitForList("tab-recent", count: 5)
            #expect(redrawn == ["fresh-pressing", "nd-2", "album-quiet-hours", "album-harbour-sessions", "ep-rn-12"])
            let title = try await stack.page.evaluate(
                "document.querySelector('[data-testid=list-item][data-id=fresh-pressing] [data-testid=item-title]').textContent")
            #expect(title == "Fresh Pressing")
            #expect(try await stack.page.evaluate("document.querySelector('[data-testid=tab][data-id=tab-recent]').ariaSelected") == "true")
        }
    }
}
