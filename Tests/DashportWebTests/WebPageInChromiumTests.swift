import DashportTestSupport
import Foundation
import Testing

/// The web head-unit emulator's page (`dashport-hu web`) clicked through in headless Debian
/// chromium, against a real server on the demo library (``WebPageStack``): tabs, grids of covers,
/// paging, search, error screens, the legacy car, now playing, the sleep timer, a catalog edit and
/// the page's sound. Every wait is for a change of the page or an event it took in, never a sleep,
/// with ``BrowserHarness/defaultTimeout`` (120 s) and what it waited for in its failure.
///
/// Each test starts its own server, car and chromium; the suite is serialized so that at most one
/// chromium of it runs at a time (two cores, other suites beside it).
@Suite(.serialized, .enabled(if: BrowserHarness.isAvailable, "no chromium here (tools/setup installs Debian's chromium)"))
struct WebPageInChromiumTests {
    /// The demo library's first four root entries: the tab cap of a car that sets none.
    static let tabs = ["tab-recent", "tab-albums", "tab-artists", "tab-podcasts"]

    @Test func theFourTabsAppearAndTheConnectionSaysLinked() async throws {
        try await WebPageStack.with { stack in
            let tabs = try await stack.strings("[...document.querySelectorAll('[data-testid=tab]')].map(e => e.dataset.id)")
            #expect(tabs == Self.tabs)
            let titles = try await stack.strings("[...document.querySelectorAll('[data-testid=tab]')].map(e => e.textContent)")
            #expect(titles == ["Recent", "Albums", "Artists", "Podcasts"])
            #expect(try await stack.read("tabs", "data-cap") == "4")
            #expect(try await stack.read("connection", "data-state") == "linked")
            #expect(try await stack.read("connection-state") == "linked")
            #expect(try await stack.read("connection-version") == "AAP 1.6")
            #expect(try await stack.read("connection-tls").hasPrefix("TLS: TLSv1."))
            // The first tab is opened by itself and its rows are drawn.
            let rows = try await stack.waitForList("tab-recent", count: 4)
            #expect(rows == ["nd-2", "album-quiet-hours", "album-harbour-sessions", "ep-rn-12"])
            #expect(try await stack.page.evaluate("document.querySelector('[data-testid=tab][data-id=tab-recent]').ariaSelected") == "true")
            for tab in Self.tabs { #expect(try await stack.page.box(of: "[data-testid=tab][data-id=\(tab)]").width > 0, "\(tab)") }
        }
    }

    @Test func screenshotsOfTheMainScreens() async throws {
        try await WebPageStack.with { stack in
            try await stack.waitForList("tab-recent", count: 4)
            try await Self.screenshot(stack, "web-tabs", showing: ["tabs", "tab", "connection", "list", "list-item", "cover"])

            try await stack.openTab("tab-albums", style: "grid")
            try await stack.waitForList("tab-albums", count: 6, style: "grid")
            try await stack.page.evaluate("Promise.all([...document.querySelectorAll('[data-testid=grid] img')].map(i => i.decode()))")
            try await Self.screenshot(stack, "web-grid", showing: ["grid", "list-item", "cover", "item-title"])

            try await stack.clickRow("album-northern-lights")
            try await stack.waitForList("album-northern-lights", count: 4)
            try await stack.clickRow("nl-1")
            try await stack.page.waitFor(
                "!document.querySelector('[data-testid=now-playing]').hidden "
                    + "&& document.querySelector('[data-testid=np-title]').textContent === 'First Light'",
                "now playing with First Light")
            try await stack.page.evaluate("document.querySelector('[data-testid=np-cover]').decode().then(() => true)")
            try await Self.screenshot(
                stack, "web-now-playing", showing: ["now-playing", "np-cover", "np-title", "scrubber", "play-pause-button", "next-button"])

            try await stack.openTab("tab-podcasts")
            try await stack.clickRow("locked-members-hour")
            try await stack.page.waitForElement("[data-testid=error-screen]")
            try await Self.screenshot(
                stack, "web-error-screen", showing: ["error-screen", "error-code", "error-message", "error-resolution"])
        }
    }

    /// Saves the viewport as `.build/browser-artifacts/NAME.png` and checks its structure, not its
    /// pixels: a PNG of the window's size, every element of `showing` present with a box, and a
    /// console without errors.
    static func screenshot(_ stack: WebPageStack, _ name: String, showing testids: [String]) async throws {
        let png = try await stack.page.screenshot(name)
        let size = try #require(pngSize(png), "\(name) is not a PNG")
        #expect(size.width == BrowserHarness.windowWidth && size.height == BrowserHarness.windowHeight, "\(name): \(size)")
        for testid in testids {
            let boxes = try await stack.page.boxes(of: "[data-testid=\(testid)]")
            #expect(boxes.contains { $0.width > 0 && $0.height > 0 }, "\(name): \(testid) has no box (\(boxes))")
        }
        #expect(stack.page.consoleErrors.isEmpty, "\(name): \(stack.page.consoleErrors)")
        let saved = FileManager.default.contents(atPath: BrowserHarness.artifactDirectory + "/\(name).png")
        #expect(saved.map(Array.init) == png, "\(name).png saved under \(BrowserHarness.artifactDirectory)")
    }
}
