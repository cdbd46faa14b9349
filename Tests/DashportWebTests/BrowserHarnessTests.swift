import DashportTestSupport
import Foundation
import Testing

/// The browser harness itself, against a tiny page from ``LoopbackHTTPServer``: what the web
/// emulator's tests rely on (evaluate, waits, clicks, keys, screenshots, the page's errors).
@Suite(.enabled(if: BrowserHarness.isAvailable, "no chromium here (tools/setup installs Debian's chromium)"))
struct BrowserHarnessTests {
    static let page = """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>harness</title>
        <style>body { margin: 0 } #button { position: absolute; left: 300px; top: 200px; width: 120px; height: 40px }</style>
        </head><body>
        <button id="button" data-testid="button">press</button>
        <input id="field" data-testid="field">
        <p id="clicks">0</p><p id="keys"></p>
        <script>
        let clicks = 0;
        document.getElementById('button').addEventListener('click', (event) => {
          clicks += 1;
          document.getElementById('clicks').textContent = String(clicks) + ' at ' + event.clientX + ',' + event.clientY;
        });
        document.addEventListener('keydown', (event) => {
          if (event.target.id !== 'field') document.getElementById('keys').textContent += event.key + ';';
        });
        </script>
        </body></html>
        """

    static func served() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer(routes: [
            ("/favicon.ico", .body([], contentType: "image/x-icon")),
            ("/", .body(Array(page.utf8), contentType: "text/html; charset=utf-8")),
        ])
    }

    @Test func evaluatesScriptsAndAwaitsPromises() async throws {
        let server = try Self.served()
        defer { server.stop() }
        try await BrowserHarness.with { browser in
            let page = try await browser.open(server.url("/"))
            #expect(try await page.evaluate("document.title") == "harness")
            #expect(try await page.evaluate("Promise.resolve(6 * 7)").int == 42)
            #expect(try await page.evaluate("({a: [1, 'two', true, null]})") == ["a": [1, "two", true, .null]])
            #expect(try await page.evaluate("undefined") == .null)
            await #expect(throws: BrowserFailure.self) { try await page.evaluate("Promise.reject(new Error('nope'))") }
            #expect(page.consoleErrors.isEmpty, "\(page.consoleErrors)")
        }
    }

    @Test func waitsForAChangeOfTheDocument() async throws {
        let server = try Self.served()
        defer { server.stop() }
        try await BrowserHarness.with { browser in
            let page = try await browser.open(server.url("/"))
            // The change comes after the wait has started (from a timer in the page): the wait
            // sees it through the MutationObserver, not by polling.
            try await page.evaluate(
                "setTimeout(() => { const p = document.createElement('p'); p.id = 'late'; p.textContent = 'arrived'; "
                    + "document.body.append(p); }, 200); true")
            let text = try await page.waitFor("document.getElementById('late')?.textContent", "the late paragraph")
            #expect(text == "arrived")
            // A wait that cannot hold fails with what it waited for, at its deadline.
            let failure = await #expect(throws: BrowserFailure.self) {
                try await page.waitFor("document.getElementById('never')", "a paragraph that never comes", timeout: .seconds(1))
            }
            #expect(failure?.description.contains("a paragraph that never comes") == true)
        }
    }

    @Test func clicksAtTheElementsCentre() async throws {
        let server = try Self.served()
        defer { server.stop() }
        try await BrowserHarness.with { browser in
            let page = try await browser.open(server.url("/"))
            let box = try await page.box(of: "[data-testid=button]")
            #expect(box == BrowserBox(x: 300, y: 200, width: 120, height: 40))
            try await page.click("[data-testid=button]")
            try await page.waitFor("document.getElementById('clicks').textContent.startsWith('1 ')", "the first click")
            #expect(try await page.evaluate("document.getElementById('clicks').textContent") == "1 at 360,220")
            try await page.click("#button")
            try await page.waitFor("document.getElementById('clicks').textContent.startsWith('2 ')", "the second click")
        }
    }

    @Test func typesTextAndPressesKeys() async throws {
        let server = try Self.served()
        defer { server.stop() }
        try await BrowserHarness.with { browser in
            let page = try await browser.open(server.url("/"))
            try await page.click("#field")
            try await page.type("Abbey Road ü")
            try await page.press(.backspace)
            #expect(try await page.evaluate("document.getElementById('field').value") == "Abbey Road ")
            try await page.evaluate("document.getElementById('field').blur(); true")
            for key: BrowserKey in [.arrowDown, .arrowUp, .arrowLeft, .arrowRight, .enter, .escape] { try await page.press(key) }
            let keys = try await page.waitFor(
                "document.getElementById('keys').textContent.endsWith('Escape;') && document.getElementById('keys').textContent",
                "the six keys")
            #expect(keys == "ArrowDown;ArrowUp;ArrowLeft;ArrowRight;Enter;Escape;")
        }
    }

    @Test func screenshotIsAPNGOfTheWindowSavedUnderTheBuildFolder() async throws {
        let server = try Self.served()
        defer { server.stop() }
        try await BrowserHarness.with { browser in
            let page = try await browser.open(server.url("/"))
            let png = try await page.screenshot("harness-screenshot")
            let size = try #require(pngSize(png))
            #expect(size.width == BrowserHarness.windowWidth && size.height == BrowserHarness.windowHeight)
            let saved = FileManager.default.contents(atPath: BrowserHarness.artifactDirectory + "/harness-screenshot.png")
            #expect(saved.map(Array.init) == png)
            #expect(try await page.evaluate("[innerWidth, innerHeight]") == [.number(1280), .number(800)])
        }
    }

    @Test func reportsConsoleErrorsAndExceptions() async throws {
        let server = try Self.served()
        defer { server.stop() }
        try await BrowserHarness.with { browser in
            let page = try await browser.open(server.url("/"))
            #expect(page.consoleErrors.isEmpty, "\(page.consoleErrors)")
            try await page.evaluate("console.error('the cover did not load', 404); setTimeout(() => { throw new Error('kaput') }, 0); true")
            try await page.evaluate("new Promise(resolve => setTimeout(resolve, 0))")
            try await eventually("both errors reported") { page.consoleErrors.count >= 2 }
            #expect(page.consoleErrors.contains { $0.contains("the cover did not load") && $0.contains("404") })
            #expect(page.consoleErrors.contains { $0.contains("exception") && $0.contains("kaput") })
        }
    }

    @Test func imageNaturalSizeAndAudioInTheHeadlessBrowser() async throws {
        let server = try Self.served()
        defer { server.stop() }
        try await BrowserHarness.with { browser in
            let page = try await browser.open(server.url("/"))
            // A 3×2 image drawn by the page itself, shown at another size: the natural size is the file's.
            try await page.evaluate(
                """
                (() => { const c = document.createElement('canvas'); c.width = 3; c.height = 2;
                  const img = document.createElement('img'); img.id = 'drawn'; img.style.width = '90px'; img.src = c.toDataURL();
                  document.body.append(img); return true; })()
                """)
            let natural = try await page.naturalSize(of: "#drawn")
            #expect(natural.width == 3 && natural.height == 2)
            #expect(try await page.box(of: "#drawn").width == 90)
            // Audio starts without a gesture (--autoplay-policy) and runs with no sound card.
            let state = try await page.evaluate(
                "(async () => { const c = new AudioContext(); await c.resume(); return c.state; })()")
            #expect(state == "running")
        }
    }
}
