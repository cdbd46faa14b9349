import Foundation
import Synchronization

/// An element's box in CSS pixels of the viewport (getBoundingClientRect).
public struct BrowserBox: Sendable, Equatable, CustomStringConvertible {
    public let x: Double
    public let y: Double
    public let width: Double
    public let height: Double
    public var description: String { "\(width)×\(height) at (\(x), \(y))" }

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// One tab of a ``BrowserHarness``, attached with a flat session: Page, Runtime and Log enabled,
/// the viewport fixed at the harness's window size, and the page's errors collected.
public final class BrowserPage: Sendable {
    let harness: BrowserHarness
    let session: String
    private let errors = Mutex<[String]>([])

    private init(harness: BrowserHarness, session: String) {
        self.harness = harness
        self.session = session
    }

    static func create(in harness: BrowserHarness) async throws -> BrowserPage {
        let timeout = BrowserHarness.defaultTimeout
        let target = try await harness.pipe.command("Target.createTarget", ["url": "about:blank"], timeout: timeout)
        guard let targetID = target["targetId"]?.string else { throw BrowserFailure("Target.createTarget gave no targetId: \(target)") }
        let attached = try await harness.pipe.command(
            "Target.attachToTarget", ["targetId": .string(targetID), "flatten": true], timeout: timeout)
        guard let session = attached["sessionId"]?.string else { throw BrowserFailure("Target.attachToTarget gave no sessionId") }
        let page = BrowserPage(harness: harness, session: session)
        harness.pipe.listen { [weak page] message in
            guard let page, message["sessionId"]?.string == session else { return }
            page.collectError(message)
        }
        for domain in ["Page.enable", "Runtime.enable", "Log.enable"] { _ = try await page.send(domain) }
        _ = try await page.send(
            "Emulation.setDeviceMetricsOverride",
            [
                "width": .number(Double(BrowserHarness.windowWidth)), "height": .number(Double(BrowserHarness.windowHeight)),
                "deviceScaleFactor": 1, "mobile": false,
            ])
        return page
    }

    /// Sends a command of this page's session.
    @discardableResult
    public func send(_ method: String, _ params: BrowserJSON = [:], timeout: Duration = BrowserHarness.defaultTimeout)
        async throws -> BrowserJSON
    {
        try await harness.pipe.command(method, params, session: session, timeout: timeout)
    }

    /// Loads `url` and returns once the page's load event fired; throws when the navigation failed.
    public func navigate(_ url: String) async throws {
        _ = try await harness.pipe.event("Page.loadEventFired", session: session, timeout: BrowserHarness.defaultTimeout) {
            let result = try await send("Page.navigate", ["url": .string(url)])
            if let problem = result["errorText"]?.string { throw BrowserFailure("loading \(url): \(problem)") }
        }
    }

    /// Evaluates `expression` in the page (awaiting it when it is a promise) and returns its value as JSON
    /// (`.null` for undefined); throws with the page's exception when it throws or rejects.
    @discardableResult
    public func evaluate(_ expression: String, timeout: Duration = BrowserHarness.defaultTimeout) async throws -> BrowserJSON {
        let reply = try await send(
            "Runtime.evaluate",
            ["expression": .string(expression), "awaitPromise": true, "returnByValue": true, "userGesture": true],
            timeout: timeout)
        if let details = reply["exceptionDetails"] {
            let text = details["exception"]?["description"]?.string ?? details["text"]?.string ?? details.description
            throw BrowserFailure("evaluating \(expression.prefix(300)): \(text)")
        }
        return reply["result"]?["value"] ?? .null
    }

    /// Waits until `condition` (a JavaScript expression) is truthy and returns its value. It is
    /// checked now, then again at every change of the document (a MutationObserver) and at every
    /// event named in `events` (caught on the window, so media events count too): a wait for
    /// events, never a poll. An exception counts as not yet; the last one is in the failure.
    @discardableResult
    public func waitFor(
        _ condition: String, _ what: String, events: [String] = defaultWaitEvents, timeout: Duration = BrowserHarness.defaultTimeout
    ) async throws -> BrowserJSON {
        let milliseconds = Int(timeout.components.seconds) * 1000
        let script = """
            new Promise((resolve, reject) => {
              const events = \(BrowserJSON.array(events.map { .string($0) }).description);
              let done = false, lastError = null, timer = null;
              const finish = (settle, value) => {
                if (done) return;
                done = true;
                observer.disconnect();
                for (const name of events) window.removeEventListener(name, check, true);
                clearTimeout(timer);
                settle(value);
              };
              const check = () => {
                try { const value = (\(condition)); if (value) finish(resolve, value); }
                catch (error) { lastError = error; }
              };
              const observer = new MutationObserver(check);
              observer.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
              for (const name of events) window.addEventListener(name, check, true);
              timer = setTimeout(() => finish(reject, new Error(\(BrowserJSON.string("timed out waiting for " + what).description)
                + (lastError ? ' (last error: ' + lastError + ')' : ''))), \(milliseconds));
              check();
            })
            """
        // The page's own deadline comes first and says more; this one only catches a page that hangs.
        return try await evaluate(script, timeout: timeout + .seconds(30))
    }

    /// Events after which ``waitFor(_:_:events:timeout:)`` checks again, besides every DOM change.
    public static let defaultWaitEvents = [
        "load", "input", "change", "timeupdate", "playing", "pause", "transitionend", "animationend", "scroll", "message",
    ]

    /// Waits for an element matching `selector`, with a non-empty box.
    @discardableResult
    public func waitForElement(_ selector: String, timeout: Duration = BrowserHarness.defaultTimeout) async throws -> BrowserBox {
        let literal = BrowserJSON.string(selector).description
        try await waitFor(
            "(() => { const e = document.querySelector(\(literal)); if (!e) return false; const r = e.getBoundingClientRect(); "
                + "return r.width > 0 && r.height > 0; })()",
            "a visible element \(selector)", timeout: timeout)
        return try await box(of: selector)
    }

    /// The box of the first element matching `selector`; throws when none matches.
    public func box(of selector: String) async throws -> BrowserBox {
        guard let box = try await boxes(of: selector).first else { throw BrowserFailure("no element matches \(selector)") }
        return box
    }

    /// The boxes of every element matching `selector`, in document order.
    public func boxes(of selector: String) async throws -> [BrowserBox] {
        let value = try await evaluate(
            "Array.from(document.querySelectorAll(\(BrowserJSON.string(selector).description))).map(e => { "
                + "const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })")
        return (value.array ?? []).map { item in
            BrowserBox(x: item[0]?.double ?? 0, y: item[1]?.double ?? 0, width: item[2]?.double ?? 0, height: item[3]?.double ?? 0)
        }
    }

    /// The natural (decoded) size of the image matching `selector`, once it has loaded; throws when it cannot be decoded.
    public func naturalSize(of selector: String) async throws -> (width: Int, height: Int) {
        let literal = BrowserJSON.string(selector).description
        try await waitForElement(selector)
        let value = try await evaluate(
            "(async () => { const image = document.querySelector(\(literal)); await image.decode(); "
                + "return [image.naturalWidth, image.naturalHeight]; })()")
        guard let width = value[0]?.int, let height = value[1]?.int else { throw BrowserFailure("\(selector): no natural size (\(value))") }
        return (width, height)
    }

    /// Clicks the element matching `selector` like a mouse: waits for it to be visible, scrolls it
    /// into view, and presses and releases the left button at its centre (Input.dispatchMouseEvent).
    public func click(_ selector: String) async throws {
        try await waitForElement(selector)
        try await evaluate(
            "document.querySelector(\(BrowserJSON.string(selector).description)).scrollIntoView({block: 'center', inline: 'center'})")
        let box = try await box(of: selector)
        let x = BrowserJSON.number(box.x + box.width / 2)
        let y = BrowserJSON.number(box.y + box.height / 2)
        try await send("Input.dispatchMouseEvent", ["type": "mouseMoved", "x": x, "y": y])
        for type: BrowserJSON in ["mousePressed", "mouseReleased"] {
            try await send("Input.dispatchMouseEvent", ["type": type, "x": x, "y": y, "button": "left", "buttons": 1, "clickCount": 1])
        }
    }

    /// Types `text` into the focused element, a key press (Input.dispatchKeyEvent) per character.
    public func type(_ text: String) async throws {
        for character in text {
            let key = BrowserJSON.string(String(character))
            try await send("Input.dispatchKeyEvent", ["type": "keyDown", "key": key, "text": key, "unmodifiedText": key])
            try await send("Input.dispatchKeyEvent", ["type": "keyUp", "key": key])
        }
    }

    /// Presses and releases `key` (arrows, enter, escape, backspace: a rotary controller's keys).
    public func press(_ key: BrowserKey) async throws {
        var down: [String: BrowserJSON] = [
            "key": .string(key.key), "code": .string(key.code), "windowsVirtualKeyCode": .number(Double(key.keyCode)),
            "type": key.text == nil ? "rawKeyDown" : "keyDown",
        ]
        if let text = key.text { down["text"] = .string(text) }
        try await send("Input.dispatchKeyEvent", .object(down))
        try await send(
            "Input.dispatchKeyEvent",
            ["type": "keyUp", "key": .string(key.key), "code": .string(key.code), "windowsVirtualKeyCode": .number(Double(key.keyCode))])
    }

    /// Captures the viewport as PNG, saves it as `BrowserHarness.artifactDirectory/NAME.png`, and returns its bytes.
    @discardableResult
    public func screenshot(_ name: String) async throws -> [UInt8] {
        let reply = try await send("Page.captureScreenshot", ["format": "png"])
        guard let base64 = reply["data"]?.string, let data = Data(base64Encoded: base64) else {
            throw BrowserFailure("Page.captureScreenshot gave no image")
        }
        let directory = BrowserHarness.artifactDirectory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: directory + "/" + name + ".png"))
        return Array(data)
    }

    /// The page's errors so far: console.error calls, uncaught exceptions, and error log entries
    /// (a failed resource load, a refused connection), each as one line.
    public var consoleErrors: [String] { errors.withLock { $0 } }

    private func collectError(_ message: BrowserJSON) {
        let params = message["params"] ?? [:]
        let line: String?
        switch message["method"]?.string {
        case "Runtime.consoleAPICalled" where params["type"]?.string == "error":
            let arguments = params["args"]?.array ?? []
            line = "console.error: " + arguments.map { $0["value"]?.description ?? $0["description"]?.string ?? "?" }.joined(separator: " ")
        case "Runtime.exceptionThrown":
            let details = params["exceptionDetails"] ?? [:]
            line = "exception: " + (details["exception"]?["description"]?.string ?? details["text"]?.string ?? details.description)
        case "Log.entryAdded" where params["entry"]?["level"]?.string == "error":
            let entry = params["entry"] ?? [:]
            line = "log: \(entry["text"]?.string ?? "?") \(entry["url"]?.string ?? "")"
        default:
            line = nil
        }
        if let line { errors.withLock { $0.append(line) } }
    }
}

/// A key for ``BrowserPage/press(_:)``: the DOM `key` and `code`, the Windows key code CDP needs, and its text.
public struct BrowserKey: Sendable {
    public let key: String
    public let code: String
    public let keyCode: Int
    public let text: String?

    public static let enter = BrowserKey(key: "Enter", code: "Enter", keyCode: 13, text: "\r")
    public static let escape = BrowserKey(key: "Escape", code: "Escape", keyCode: 27, text: nil)
    public static let backspace = BrowserKey(key: "Backspace", code: "Backspace", keyCode: 8, text: nil)
    public static let tab = BrowserKey(key: "Tab", code: "Tab", keyCode: 9, text: nil)
    public static let space = BrowserKey(key: " ", code: "Space", keyCode: 32, text: " ")
    public static let arrowLeft = BrowserKey(key: "ArrowLeft", code: "ArrowLeft", keyCode: 37, text: nil)
    public static let arrowUp = BrowserKey(key: "ArrowUp", code: "ArrowUp", keyCode: 38, text: nil)
    public static let arrowRight = BrowserKey(key: "ArrowRight", code: "ArrowRight", keyCode: 39, text: nil)
    public static let arrowDown = BrowserKey(key: "ArrowDown", code: "ArrowDown", keyCode: 40, text: nil)
}

/// The width and height in a PNG's IHDR chunk, or nil when `bytes` do not start like a PNG.
public func pngSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    guard bytes.count >= 24, Array(bytes[0..<8]) == signature, Array(bytes[12..<16]) == Array("IHDR".utf8) else { return nil }
    let number = { (offset: Int) in bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
    return (number(16), number(20))
}
