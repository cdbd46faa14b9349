import DashportTestSupport
import Foundation
import Testing

/// Playing from the page: now playing with a moving scrubber, next and pause, the sleep timer
/// counting down, and the car's sound arriving at the page's Web Audio.
extension WebPageInChromiumTests {
    /// Opens Albums → Northern Lights and plays its first track (First Light, a 220 Hz tone).
    static func playFirstLight(_ stack: WebPageStack) async throws {
        try await stack.openTab("tab-albums", style: "grid")
        try await stack.clickRow("album-northern-lights")
        try await stack.waitForList("album-northern-lights", count: 4)
        try await stack.clickRow("nl-1")
        try await waitForNowPlaying(stack, "First Light", status: "playing")
    }

    static func waitForNowPlaying(_ stack: WebPageStack, _ title: String, status: String) async throws {
        try await stack.page.waitFor(
            "!document.querySelector('[data-testid=now-playing]').hidden "
                + "&& document.querySelector('[data-testid=np-title]').textContent === \(BrowserJSON.string(title)) "
                + "&& document.querySelector('[data-testid=np-status]').dataset.status === '\(status)'",
            "now playing \(title), \(status)")
    }

    @Test func playShowsNowPlayingTheScrubberMovesNextChangesTheTitleAndPausePauses() async throws {
        try await WebPageStack.with { stack in
            try await Self.playFirstLight(stack)
            #expect(try await stack.read("np-title", "data-id") == "nl-1")
            #expect(try await stack.read("now-playing-button", "data-open") == "true")
            #expect(try await stack.read("play-pause-button", "data-action") == "pause")
            // The scrubber moves on by itself: more than half a second of media time, waited for.
            let start = try await stack.page.waitFor(
                "(() => { const p = document.querySelector('[data-testid=scrubber]').dataset.positionMs; "
                    + "return p !== undefined ? [Number(p)] : false; })()", "a position on the scrubber")
            let from = try #require(start[0]?.double)
            let moved = try await stack.page.waitFor(
                "(() => { const p = Number(document.querySelector('[data-testid=scrubber]').dataset.positionMs); "
                    + "return p > \(from) + 500 ? p : false; })()", "the scrubber to move on by 500 ms")
            #expect((moved.double ?? 0) > from + 500)
            #expect(try await stack.number("scrubber", "data-duration-ms") == 214_000)
            #expect(try await stack.page.evaluate("document.querySelector('[data-testid=scrubber-fill]').style.width !== '0'") == true)

            try await stack.page.click("[data-testid=next-button]")
            try await Self.waitForNowPlaying(stack, "Polar Drift", status: "playing")
            #expect(try await stack.read("np-title", "data-id") == "nl-2")

            try await stack.page.click("[data-testid=play-pause-button]")
            try await Self.waitForNowPlaying(stack, "Polar Drift", status: "paused")
            #expect(try await stack.read("play-pause-button", "data-action") == "play")
            #expect(try await stack.number("scrubber", "data-rate") == 0)
        }
    }

    @Test func theSleepTimerCountsDownOnThePage() async throws {
        try await WebPageStack.with { stack in
            try await Self.playFirstLight(stack)
            // A native select's popup is not part of the page: the option is picked as the page's
            // own change handler receives it.
            try await stack.page.evaluate(
                "(() => { const s = document.querySelector('[data-testid=sleep-timer-select]'); s.focus(); s.value = '60000'; "
                    + "s.dispatchEvent(new Event('change', { bubbles: true })); return true; })()")
            let first = try await stack.page.waitFor(
                "(() => { const t = document.querySelector('[data-testid=sleep-timer]'); const left = Number(t.dataset.remainingMs); "
                    + "return t.dataset.mode === 'duration' && t.dataset.remainingMs !== '' && left > 0 && left <= 60000 ? left : false; })()",
                "the sleep timer armed for a minute")
            let start = try #require(first.double)
            let later = try await stack.page.waitFor(
                "(() => { const left = Number(document.querySelector('[data-testid=sleep-timer]').dataset.remainingMs); "
                    + "return left > 0 && left < \(start) - 1000 ? left : false; })()", "the sleep timer to count down by a second")
            #expect((later.double ?? .infinity) < start - 1000)
            let label = try await stack.read("sleep-timer")
            #expect(label.hasPrefix("in 0:5") || label.hasPrefix("in 1:00"), "\(label)")
            // Off again: the page says so.
            try await stack.page.evaluate(
                "(() => { const s = document.querySelector('[data-testid=sleep-timer-select]'); s.value = 'cancel'; "
                    + "s.dispatchEvent(new Event('change', { bubbles: true })); return true; })()")
            try await stack.page.waitFor(
                "document.querySelector('[data-testid=sleep-timer]').dataset.mode === 'off' "
                    + "&& document.querySelector('[data-testid=sleep-timer]').textContent === 'off'", "the sleep timer off")
        }
    }
}
