import DashportArtwork
import DashportEmulator
import DashportHTTP
import DashportHeadUnit
import DashportLog
import DashportServer
import DashportTestSupport
import DashportTransport
import DashportWebEmulator
import Foundation
import Synchronization
import Testing

/// What `dashport-hu web` runs, in-process, with a real browser on it: a ``TestServer`` (the demo
/// library unless a catalog is given, covers from ``OfflineCoverFetcher``), a ``WebCar`` linked to it over
/// TCP, the page's ``HTTPServer`` on 127.0.0.1:0, and headless chromium showing the page, linked,
/// with its four tabs drawn. The one setup of ``WebPageInChromiumTests``.
///
/// Before the page's own script runs, ``recorder`` is installed: it keeps every toast ever shown
/// (toasts vanish after 8 s) and every event of a second `/events` stream, so a test can say what
/// the page was told, not only what it shows now. After the body, ``with(catalog:pageSize:_:)``
/// demands a console without errors and no toast saying a cover failed.
struct WebPageStack: Sendable {
    let phone: TestServer
    let car: WebCar
    let web: HTTPServer
    let page: BrowserPage
    let covers: OfflineCoverFetcher

    /// The demo library's catalog (`Fixtures/demo/catalog.json`).
    static func demoCatalog() throws -> String { try DemoLibrary.catalogPath() }

    static func with(catalog: String? = nil, pageSize: UInt32? = nil, _ body: (WebPageStack) async throws -> Void) async throws {
        let covers = OfflineCoverFetcher(source: try coverFile())
        try await TestServer.with(artworkFetcher: covers, configure: { $0.catalog = catalog }) { phone in
            let identity = try TestTLS.carIdentity.get()
            let address = phone.server.address
            let car = WebCar(
                connector: { request in
                    try await HeadUnitClient.connect(
                        to: address, configuration: request.configuration, identity: identity, timeout: .seconds(60),
                        tap: request.tap, audioOutput: request.audioOutput)
                },
                configuration: WebCar.defaultConfiguration.patient, settings: WebCarSettings(), timeout: .seconds(60),
                logger: .silent)
            let records = try TemporaryDirectory()
            defer { records.remove() }
            let routes = WebRoutes(car: car, recordDirectory: records.path, pageSize: pageSize)
            let web = try HTTPServer.start(
                HTTPServerConfiguration(listen: try #require(ListenAddress(parsing: "127.0.0.1:0"))), logger: .silent
            ) { request in await routes.handle(request) }
            await car.start()
            do {
                try await BrowserHarness.with { browser in
                    // A blank tab first, so that the recorder is in place before the page's first line runs.
                    let page = try await browser.open("about:blank")
                    try await page.send("Page.addScriptToEvaluateOnNewDocument", ["source": .string(recorder)])
                    try await page.navigate(web.url)
                    let stack = WebPageStack(phone: phone, car: car, web: web, page: page, covers: covers)
                    try await stack.waitUntilLinked()
                    try await body(stack)
                    try await stack.expectCleanPage()
                }
            } catch {
                await car.stop()
                web.shutdown()
                throw error
            }
            await car.stop()
            web.shutdown()
        }
    }

    /// A demo cover (a square 600 px JPEG) that ``OfflineCoverFetcher`` hands out for every https cover.
    static func coverFile() throws -> String {
        URL(fileURLWithPath: try demoCatalog()).deletingLastPathComponent().appendingPathComponent("covers/night-drive.jpg").path
    }

    // MARK: Waits and looks, each naming what it waited for

    /// Waits until the connection bar says linked and the tab bar holds its tabs.
    func waitUntilLinked() async throws {
        try await page.waitFor(
            "document.querySelector('[data-testid=connection]').dataset.state === 'linked' "
                + "&& document.querySelectorAll('[data-testid=tab]').length > 0",
            "the connection bar to say linked and the tabs to be drawn")
    }

    /// Waits until the list (or grid) of `parent` is drawn with at least `count` rows; returns its row ids.
    @discardableResult
    func waitForList(_ parent: String, count: Int = 1, style: String = "list") async throws -> [String] {
        let selector = "[data-testid=\(style)][data-parent=\"\(parent)\"]"
        try await page.waitFor(
            "document.querySelectorAll('\(selector) [data-testid=list-item]').length >= \(count)",
            "the \(style) of \(parent) with \(count) or more rows")
        return try await strings("[...document.querySelectorAll('\(selector) [data-testid=list-item]')].map(e => e.dataset.id)")
    }

    /// Clicks a tab by its id and waits for its first rows (`style`: list or grid).
    func openTab(_ id: String, style: String = "list") async throws {
        try await page.click("[data-testid=tab][data-id=\"\(id)\"]")
        try await waitForList(id, style: style)
    }

    /// Clicks the row `id` of the list on screen.
    func clickRow(_ id: String) async throws {
        try await page.click("[data-testid=list-item][data-id=\"\(id)\"]")
    }

    /// An attribute (or text, for `nil`) of the element `testid`, "" when it has none.
    func read(_ testid: String, _ attribute: String? = nil) async throws -> String {
        let node = "document.querySelector('[data-testid=\(testid)]')"
        let value = attribute.map { "\(node).getAttribute('\($0)')" } ?? "\(node).textContent"
        return try await page.evaluate("\(value) || ''").string ?? ""
    }

    /// A number attribute of the element `testid` (NaN when missing).
    func number(_ testid: String, _ attribute: String) async throws -> Double {
        try await page.evaluate("Number(document.querySelector('[data-testid=\(testid)]').getAttribute('\(attribute)'))").double
            ?? .nan
    }

    func strings(_ expression: String) async throws -> [String] {
        try await page.evaluate(expression).array?.compactMap(\.string) ?? []
    }

    /// Every toast shown since the page loaded: `[kind, code, text]`.
    func toasts() async throws -> [[String]] {
        let value = try await page.evaluate("window.dashportTest.toasts.map(t => [t.kind, t.code || '', t.text])")
        return value.array?.map { ($0.array ?? []).compactMap(\.string) } ?? []
    }

    /// Waits for an event of the test's own `/events` stream that `condition` (JavaScript over
    /// `e.name` and `e.data`) accepts after the first `after` events; returns its data.
    @discardableResult
    func waitForEvent(_ condition: String, _ what: String, after: Int = 0) async throws -> BrowserJSON {
        try await page.waitFor(
            "window.dashportTest.events.slice(\(after)).find(e => \(condition))?.data || false", what,
            events: BrowserPage.defaultWaitEvents + ["dashport-test-event"])
    }

    /// How many events the test's stream has taken in so far.
    func eventCount() async throws -> Int { try await page.evaluate("window.dashportTest.events.length").int ?? 0 }

    /// The page is clean: nothing on its console, no cover that failed.
    func expectCleanPage() async throws {
        #expect(page.consoleErrors.isEmpty, "the page's console: \(page.consoleErrors)")
        let failed = try await toasts().filter { $0.contains("artworkFailed") || $0.joined().lowercased().contains("cover") }
        #expect(failed.isEmpty, "a cover failed: \(failed)")
        let asked = covers.asked
        #expect(asked.allSatisfy { $0.hasPrefix("https://") }, "only https covers go to the fetcher: \(asked)")
    }

    /// Installed with Page.addScriptToEvaluateOnNewDocument: runs before the page's script.
    static let recorder = """
        window.dashportTest = { toasts: [], events: [] };
        new MutationObserver((records) => {
          for (const record of records) for (const node of record.addedNodes) {
            if (node.nodeType === 1 && node.dataset.testid === 'toast') {
              window.dashportTest.toasts.push({ kind: node.dataset.kind, code: node.dataset.code, text: node.textContent });
            }
          }
        }).observe(document, { subtree: true, childList: true });
        (() => {
          const source = new EventSource('/events');
          for (const name of ['settings', 'connection', 'tabs', 'item', 'playback', 'sleepTimer', 'childrenChanged', 'sessionError']) {
            source.addEventListener(name, (event) => {
              window.dashportTest.events.push({ name, data: JSON.parse(event.data) });
              window.dispatchEvent(new Event('dashport-test-event'));
            });
          }
        })();
        """
}
