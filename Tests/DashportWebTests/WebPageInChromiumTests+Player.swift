import DashportTestSupport
import Foundation
import Testing

/// Playing from the page: now playing with a moving scrubber, next and pause, the sleep timer
/// counting down, and the car's sound in the page: the PCM of `/audio` as the page hands it to Web
/// Audio, and what Web Audio renders behind the page's gain node, each heard as the playing
/// track's tone (Goertzel).
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
            try await stack.page.waitFor(
                "document.querySelector('[data-testid=scrubber]').dataset.rate === '0'", "the scrubber to stop (rate 0)")
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
            // The count and its label, read in one go (both are drawn in the same frame).
            let later = try await stack.page.waitFor(
                "(() => { const t = document.querySelector('[data-testid=sleep-timer]'); const left = Number(t.dataset.remainingMs); "
                    + "return left > 0 && left < \(start) - 1000 ? [left, t.textContent] : false; })()",
                "the sleep timer to count down by a second")
            let left = try #require(later[0]?.double)
            #expect(left < start - 1000)
            let seconds = Int((left + 999) / 1000)
            #expect(later[1]?.string == "in \(seconds / 60):" + String(format: "%02d", seconds % 60), "\(later) ms left")
            // Off again: the page says so.
            try await stack.page.evaluate(
                "(() => { const s = document.querySelector('[data-testid=sleep-timer-select]'); s.value = 'cancel'; "
                    + "s.dispatchEvent(new Event('change', { bubbles: true })); return true; })()")
            try await stack.page.waitFor(
                "document.querySelector('[data-testid=sleep-timer]').dataset.mode === 'off' "
                    + "&& document.querySelector('[data-testid=sleep-timer]').textContent === 'off'", "the sleep timer off")
        }
    }

    /// The demo tones near the first tracks: the strongest of them is the tone heard.
    static let tones = [220, 293.66, 369.99, 440, 523.25, 587.33, 659.26, 739.99]

    /// Installed once the page's AudioContext exists (it is made at the first click): keeps the
    /// last second of the left channel the page received (`playPCM` wrapped) and of what Web Audio
    /// rendered after the page's gain node (a ScriptProcessor), with a Goertzel detector over them.
    static let audioTap = """
        (() => {
          const t = window.dashportTest, audio = window.dashportAudio;
          const keep = (store, values) => {
            for (const v of values) store.samples.push(v);
            store.total += values.length;
            if (store.samples.length > 48000) store.samples.splice(0, store.samples.length - 48000);
            window.dispatchEvent(new Event('dashport-test-audio'));
          };
          t.received = { samples: [], total: 0 };
          t.rendered = { samples: [], total: 0 };
          t.power = (samples, hz) => {
            const k = 2 * Math.cos(2 * Math.PI * hz / 48000);
            let s1 = 0, s2 = 0;
            for (const x of samples) { const s = x + k * s1 - s2; s2 = s1; s1 = s; }
            return (s1 * s1 + s2 * s2 - k * s1 * s2) / (samples.length * samples.length);
          };
          // The strongest candidate over the last 0.2 s when it is ten times any other and not silence.
          t.tone = (store, candidates) => {
            const last = store.samples.slice(-9600);
            if (last.length < 9600) return null;
            const powers = candidates.map((hz) => [hz, t.power(last, hz)]).sort((a, b) => b[1] - a[1]);
            return powers[0][1] > 1e-5 && powers[0][1] > 10 * powers[1][1] ? powers[0][0] : null;
          };
          const original = window.playPCM;
          if (typeof original !== 'function') return 'the page has no playPCM';
          window.playPCM = function (bytes) {
            const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length - (bytes.length % 4));
            const left = new Array(view.byteLength / 4);
            for (let i = 0; i < left.length; i++) left[i] = view.getInt16(4 * i, true) / 32768;
            keep(t.received, left);
            return original(bytes);
          };
          if (!audio.context || !audio.gain) return 'no AudioContext';
          const processor = audio.context.createScriptProcessor(4096, 2, 2);
          processor.onaudioprocess = (event) => keep(t.rendered, event.inputBuffer.getChannelData(0));
          audio.gain.connect(processor);
          processor.connect(audio.context.destination);
          t.processor = processor;
          return audio.context.state;
        })()
        """

    @Test func thePagesAudioPathReceivesThePlayingTracksTone() async throws {
        try await WebPageStack.with { stack in
            try await stack.openTab("tab-albums", style: "grid")
            let state = try await stack.page.evaluate(Self.audioTap)
            #expect(state == "running", "the AudioContext after the first click: \(state)")
            try await stack.clickRow("album-northern-lights")
            try await stack.waitForList("album-northern-lights", count: 4)
            try await stack.clickRow("nl-1")
            try await Self.waitForNowPlaying(stack, "First Light", status: "playing")
            try await Self.waitForTone(stack, 220, in: "received")
            try await Self.waitForTone(stack, 220, in: "rendered")

            try await stack.page.click("[data-testid=next-button]")
            try await Self.waitForNowPlaying(stack, "Polar Drift", status: "playing")
            try await Self.waitForTone(stack, 293.66, in: "received")
            try await Self.waitForTone(stack, 293.66, in: "rendered")

            let counts = try await stack.page.evaluate(
                "[window.dashportAudio.samplesReceived, window.dashportAudio.bytesReceived, window.dashportTest.rendered.total, "
                    + "window.dashportAudio.error]")
            let samples = try #require(counts[0]?.int)
            #expect(samples > 48_000, "over half a second of stereo samples reached the page: \(counts)")
            #expect(counts[1]?.int == samples * 2)
            #expect((counts[2]?.int ?? 0) > 9600)
            #expect(counts[3] == .null, "the page's audio error: \(counts)")
            #expect(try await stack.read("audio-state") == "sound: on")
        }
    }

    /// Waits until the last 0.2 s of `store` (received or rendered) is the tone `hz`.
    static func waitForTone(_ stack: WebPageStack, _ hz: Double, in store: String) async throws {
        let candidates = BrowserJSON.array(tones.map { .number($0) }).description
        let heard = try await stack.page.waitFor(
            "window.dashportTest.tone(window.dashportTest.\(store), \(candidates)) === \(hz)",
            "the \(hz) Hz tone in the samples the page \(store)", events: ["dashport-test-audio"])
        #expect(heard == true)
    }
}
