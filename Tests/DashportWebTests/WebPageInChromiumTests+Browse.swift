import DashportTestSupport
import Foundation
import Testing

/// Browsing in the page: a grid of real covers, paging while the list scrolls, search, an error
/// screen with its resolution button, the legacy car's empty lists, and a catalog edit on the
/// server's side (the server watches its catalog file, pushes childrenChanged, and the open list is
/// drawn again with the new item).
extension WebPageInChromiumTests {
    static let albums = [
        "album-northern-lights", "album-harbour-sessions", "album-paper-planes", "album-night-drive", "album-quiet-hours",
        "album-city-lights",
    ]

    @Test func theAlbumsOpenAsAGridOfCoversAtTheRequestedSize() async throws {
        try await WebPageStack.with { stack in
            try await stack.openTab("tab-albums", style: "grid")
            #expect(try await stack.waitForList("tab-albums", count: 6, style: "grid") == Self.albums)
            #expect(try await stack.read("grid", "data-style") == "grid")
            // Each cover: the size in its /art URL, its data-size, the box the layout draws, the
            // image's decoded size and the size the server says it sent (X-Dashport-Image-Size).
            let covers = try await stack.page.evaluate(
                """
                Promise.all([...document.querySelectorAll('[data-testid=grid] [data-testid=list-item]')].map(async (row) => {
                  const image = row.querySelector('img[data-testid=cover]');
                  await image.decode();
                  const url = new URL(image.src);
                  const box = image.getBoundingClientRect();
                  const sent = (await fetch(image.src)).headers.get('X-Dashport-Image-Size');
                  return [row.dataset.id, url.searchParams.get('w') + 'x' + url.searchParams.get('h'), image.dataset.size,
                    box.width + 'x' + box.height, image.naturalWidth + 'x' + image.naturalHeight, sent];
                }))
                """)
            let rows = (covers.array ?? []).map { ($0.array ?? []).map { $0.string ?? "\($0)" } }
            #expect(rows.map { $0.first ?? "" } == Self.albums)
            for row in rows {
                #expect(row.dropFirst() == ["170x170", "170", "170x170", "170x170", "170x170"], "cover of \(row.first ?? "?"): \(row)")
            }
            // City Lights' cover is an https URL: it came through the offline fetcher, not the network.
            #expect(stack.covers.asked.contains("https://picsum.photos/id/1011/600/600"))
        }
    }

    @Test func aListLongerThanOnePageLoadsItsNextPagesAsItScrolls() async throws {
        // `dashport-hu web --page-size 2`, in a window so low that the second row is below its fold.
        try await WebPageStack.with(pageSize: 2) { stack in
            try await stack.page.send(
                "Emulation.setDeviceMetricsOverride", ["width": 1280, "height": 240, "deviceScaleFactor": 1, "mobile": false])
            try await stack.openTab("tab-podcasts")
            #expect(try await stack.read("list", "data-pages") == "1")
            #expect(try await stack.read("list", "data-count") == "2")
            let fold = try await stack.page.evaluate(
                "document.querySelector('[data-testid=load-more]').getBoundingClientRect().top - innerHeight")
            #expect((fold.double ?? -1) > 0, "the load-more button starts below the fold (\(fold) px)")
            // Scroll like a car's list: a wheel turn at a time, each waited for until the next page is in.
            var pages = 1
            while try await stack.page.evaluate("!!document.querySelector('[data-testid=load-more]')").bool == true {
                try await stack.page.send(
                    "Input.dispatchMouseEvent", ["type": "mouseWheel", "x": 640, "y": 120, "deltaX": 0, "deltaY": 400])
                try await stack.page.waitFor(
                    "Number(document.querySelector('[data-testid=list]').dataset.pages) > \(pages)", "page \(pages + 1) of the podcasts")
                pages = Int(try await stack.number("list", "data-pages"))
                #expect(pages <= 4, "seven podcasts in pages of two")
                if pages >= 4 { break }
            }
            let ids = try await stack.waitForList("tab-podcasts", count: 7)
            #expect(ids == ["show-road-notes", "show-late-shift"] + WebPageInChromiumTests.locked)
            #expect(try await stack.read("list", "data-pages") == "4")
            #expect(try await stack.read("page-status").hasPrefix("7 "))
        }
    }

    static let locked = [
        "locked-members-hour", "locked-studio-extra", "locked-matchday-live", "locked-after-dark", "locked-road-notes-video",
    ]

    @Test func aSearchThroughTheTextFieldShowsResults() async throws {
        try await WebPageStack.with { stack in
            try await stack.page.click("[data-testid=search-field]")
            try await stack.page.type("night")
            try await stack.page.press(.enter)
            try await stack.page.waitFor(
                "document.querySelector('[data-testid=screen-title]').textContent === 'Search: night' "
                    + "&& document.querySelectorAll('[data-testid=list] [data-testid=list-item]').length > 0",
                "the results of the search for night")
            let titles = try await stack.strings(
                "[...document.querySelectorAll('[data-testid=list] [data-testid=item-title]')].map(e => e.firstChild.textContent)")
            #expect(titles.contains("Night Drive"), "\(titles)")
            #expect(titles.allSatisfy { !$0.isEmpty })
            #expect(try await stack.page.evaluate("document.querySelector('[data-testid=back-button]').disabled") == false)
        }
    }

    @Test func theLockedPodcastShowsItsErrorScreenAndTheResolutionButtonAToast() async throws {
        try await WebPageStack.with { stack in
            try await stack.openTab("tab-podcasts")
            try await stack.clickRow("locked-members-hour")
            try await stack.page.waitForElement("[data-testid=error-screen][data-code=authenticationExpired]")
            #expect(try await stack.read("error-code") == "authenticationExpired")
            #expect(
                try await stack.read("error-message")
                    == "Your Night Desk sign-in has expired. Sign in again on your phone to keep listening.")
            #expect(try await stack.read("error-resolution") == "Sign in again")
            #expect(try await stack.read("error-resolution", "data-url") == "https://example.com/night-desk/sign-in")
            #expect(try await stack.page.evaluate("document.querySelectorAll('[data-testid=list-item]').length") == 0)
            try await stack.page.click("[data-testid=error-resolution]")
            let toast = try await stack.page.waitFor(
                "document.querySelector('[data-testid=toast][data-kind=resolution]')?.textContent", "the resolution's toast")
            #expect(
                toast.string?.contains("Sign in again") == true && toast.string?.contains("https://example.com/night-desk/sign-in") == true)
            #expect(try await stack.read("error-resolution", "data-clicked") == "true")
        }
    }

    @Test func theLegacyCarShowsAnEmptyListWhereItCannotDrawTheErrorScreen() async throws {
        try await WebPageStack.with { stack in
            let before = try await stack.eventCount()
            try await stack.page.click("[data-testid=settings-button]")
            try await stack.page.waitFor("document.querySelector('[data-testid=settings]').open", "the settings dialog")
            try await stack.page.click("[data-testid=settings-legacy]")
            try await stack.page.click("[data-testid=settings-apply]")
            try await stack.waitForEvent("e.name === 'settings' && e.data.legacy === true", "settings saying legacy", after: before)
            // The profile change makes a new link: wait for it to drop and come back.
            let dropped = try await stack.page.waitFor(
                "(() => { const i = window.dashportTest.events.findIndex((e, i) => i >= \(before) && e.name === 'connection' "
                    + "&& e.data.state !== 'linked'); return i >= 0 ? i + 1 : false; })()", "the old link to drop",
                events: BrowserPage.defaultWaitEvents + ["dashport-test-event"])
            try await stack.waitForEvent(
                "e.name === 'connection' && e.data.state === 'linked'", "the legacy link", after: dropped.int ?? before)
            try await stack.waitUntilLinked()
            try await stack.openTab("tab-podcasts")
            // notAvailableInRegion is no code a legacy car can draw: an empty list instead.
            try await stack.clickRow("locked-matchday-live")
            try await stack.page.waitForElement("[data-testid=list][data-parent=locked-matchday-live] ~ [data-testid=empty-list]")
            #expect(try await stack.read("list", "data-count") == "0")
            #expect(try await stack.page.evaluate("document.querySelector('[data-testid=error-screen]') === null") == true)
            // authenticationExpired is one of the two it can: still the error screen.
            try await stack.page.click("[data-testid=back-button]")
            try await stack.clickRow("locked-members-hour")
            try await stack.page.waitForElement("[data-testid=error-screen][data-code=authenticationExpired]")
        }
    }

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
