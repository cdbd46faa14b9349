import DashportTestSupport
import Foundation
import Testing

/// The car's sound in the page: the PCM of `/audio` as the page hands it to Web Audio, and what Web
/// Audio renders behind the page's gain node, each heard as the playing track's tone (Goertzel).
extension WebPageInChromiumTests {
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
