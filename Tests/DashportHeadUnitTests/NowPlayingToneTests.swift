import DashportEmulator
import DashportHeadUnit
import DashportMessages
import Testing

/// `np`'s tone: it listens first for the playing item's `extras["toneHz"]`, falls back to the
/// common test tones, and says which it heard.
@Suite struct NowPlayingToneTests {
    /// A sink that has heard one DATA of `samples`.
    static func sink(hearing samples: [Int16]) -> MediaSinkClient {
        var sink = MediaSinkClient(car: HeadUnitConfiguration.aasdkLikeCar)
        _ = sink.receive(messageId: 0x8000, body: AAP.MediaSetup(type: .audioPcm).serializedBytes(), now: .zero)
        _ = sink.receive(messageId: 0x8001, body: AAP.MediaStart(sessionId: 0, configurationIndex: 0).serializedBytes(), now: .zero)
        _ = sink.receive(messageId: 0, body: SinkTestAudio.data(timestampUs: 0, samples: samples), now: .zero)
        return sink
    }

    static func item(toneHz: String?) -> DashportMedia.MediaItem {
        DashportMedia.MediaItem(id: "nl-2", extras: toneHz.map { [.init(key: "toneHz", value: $0)] } ?? [])
    }

    @Test func thePlayingItemsToneIsHeardWhereTheCommonTonesMissIt() throws {
        // 293.66 Hz (D4) is not among ToneDetector.commonFrequencies.
        let sink = Self.sink(hearing: SinkTestAudio.sine(293.66))
        #expect(AudioSnapshot(sink, now: .zero).tone?.frequency != 293.66, "without the item's pitch np cannot name it")
        let snapshot = AudioSnapshot(sink, now: .zero, expectedToneHz: 293.66)
        #expect(snapshot.tone?.frequency == 293.66)
        #expect(try #require(snapshot.tone).level > 0.4)
        #expect(ScreenRenderer.audio(snapshot).last == "  tone: 293.66 Hz (the playing item's toneHz)")
    }

    @Test func anotherToneStillSaysWhatPlays() {
        let snapshot = AudioSnapshot(Self.sink(hearing: SinkTestAudio.sine(880)), now: .zero, expectedToneHz: 293.66)
        #expect(snapshot.tone?.frequency == 880)
        #expect(ScreenRenderer.audio(snapshot).last == "  tone: 880 Hz (not the playing item's toneHz 293.66 Hz)")
    }

    @Test func silenceNamesTheToneItWaitsFor() {
        let snapshot = AudioSnapshot(Self.sink(hearing: [Int16](repeating: 0, count: 4096)), now: .zero, expectedToneHz: 220)
        #expect(snapshot.tone == nil)
        #expect(ScreenRenderer.audio(snapshot).last == "  tone: none (silence or no audio); the playing item's toneHz is 220 Hz")
    }

    @Test func anItemsToneHzIsAPositiveNumberOrNothing() {
        #expect(AudioSnapshot.toneHz(of: Self.item(toneHz: "220")) == 220)
        #expect(AudioSnapshot.toneHz(of: Self.item(toneHz: "293.66")) == 293.66)
        for text in ["loud", "", "-5", "0", "nan", "inf"] {
            #expect(AudioSnapshot.toneHz(of: Self.item(toneHz: text)) == nil, "\"\(text)\"")
        }
        #expect(AudioSnapshot.toneHz(of: Self.item(toneHz: nil)) == nil)
        #expect(AudioSnapshot.toneHz(of: nil) == nil)
        // A pitch the format cannot carry (over half the sample rate) is not listened for.
        let sink = Self.sink(hearing: SinkTestAudio.sine(880))
        #expect(AudioSnapshot(sink, now: .zero, expectedToneHz: 30_000).expectedToneHz == nil)
    }
}
