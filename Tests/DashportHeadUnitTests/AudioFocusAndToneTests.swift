import DashportDigest
import DashportEmulator
import DashportHeadUnit
import DashportMessages
import Foundation
import Testing

/// Focus answers per ``AudioFocusBehaviour`` on a manual clock, the Goertzel tone detector, and
/// the WAV header and file the emulator saves.
@Suite struct AudioFocusAndToneTests {
    static func request(_ type: AAP.AudioFocusRequest.FocusType) -> [UInt8] {
        AAP.AudioFocusRequest(audioFocusType: type).serializedBytes()
    }

    static func notification(_ state: AAP.AudioFocusNotification.State, unsolicited: Bool = false) -> MediaSinkOutput {
        .send(
            channel: 0, messageId: 19,
            body: AAP.AudioFocusNotification(focusState: state, unsolicited: unsolicited ? true : nil).serializedBytes())
    }

    static func sink(_ focus: AudioFocusBehaviour) -> MediaSinkClient {
        MediaSinkClient(car: HeadUnitConfiguration.aasdkLikeCar, configuration: MediaSinkConfiguration(focus: focus))
    }

    @Test func openautoAnswersReleaseWithLossAndEveryGainWithGain() {
        var sink = Self.sink(.openauto)
        let release = sink.receiveFocusRequest(Self.request(.release), now: .zero)
        #expect(release == [Self.notification(.loss), .event(.focusRequested(.release, answer: .loss))])
        #expect(release.first == .send(channel: 0, messageId: 19, body: [0x08, 0x03]))
        for type in [AAP.AudioFocusRequest.FocusType.gain, .gainTransient, .gainTransientMayDuck] {
            #expect(sink.receiveFocusRequest(Self.request(type), now: .zero).first == Self.notification(.gain))
        }
        #expect(sink.focus == .gain && sink.stats.focusRequests == 4)
        #expect(sink.nextDeadline == nil)
    }

    @Test func neverAnswerGainLeavesGainRequestsUnanswered() {
        var sink = Self.sink(.neverAnswerGain)
        #expect(sink.receiveFocusRequest(Self.request(.gain), now: .zero) == [.event(.focusRequested(.gain, answer: nil))])
        #expect(sink.receiveFocusRequest(Self.request(.release), now: .zero).first == Self.notification(.loss))
    }

    @Test func unsolicitedLossComesAfterTheFirstStartThenGainBack() {
        var sink = Self.sink(.unsolicitedLoss(after: .seconds(3), regainAfter: .seconds(2)))
        _ = sink.receiveFocusRequest(Self.request(.gain), now: .zero)
        #expect(sink.nextDeadline == nil, "nothing before START")
        _ = sink.receive(messageId: 0x8000, body: AAP.MediaSetup(type: .audioPcm).serializedBytes(), now: .zero)
        _ = sink.receive(messageId: 0x8001, body: AAP.MediaStart(sessionId: 0, configurationIndex: 0).serializedBytes(), now: .seconds(10))
        #expect(sink.stats.startsWithoutFocus == 0)
        #expect(sink.nextDeadline == .seconds(13))
        #expect(sink.tick(now: .seconds(12)).isEmpty)
        #expect(sink.tick(now: .seconds(13)) == [Self.notification(.loss, unsolicited: true), .event(.unsolicitedFocus(.loss))])
        #expect(sink.focus == .loss)
        #expect(sink.nextDeadline == .seconds(15))
        #expect(sink.tick(now: .seconds(16)).first == Self.notification(.gain, unsolicited: true))
        #expect(sink.nextDeadline == nil)
        // A later START schedules nothing again (once per link).
        _ = sink.receive(messageId: 0x8002, body: [], now: .seconds(17))
        _ = sink.receive(messageId: 0x8001, body: AAP.MediaStart(sessionId: 1, configurationIndex: 0).serializedBytes(), now: .seconds(18))
        #expect(sink.nextDeadline == nil)
    }

    @Test func ohuSendsAnUnsolicitedGainAfterEverySetup() {
        var sink = Self.sink(.unsolicitedGainAfterSetup)
        let out = sink.receive(messageId: 0x8000, body: AAP.MediaSetup(type: .audioPcm).serializedBytes(), now: .zero)
        #expect(out.count == 4)
        #expect(out[2] == Self.notification(.gain, unsolicited: true))
        #expect(sink.focus == .gain)
        // A START without having asked: the unsolicited GAIN counts as focus held.
        _ = sink.receive(messageId: 0x8001, body: AAP.MediaStart(sessionId: 0, configurationIndex: 0).serializedBytes(), now: .zero)
        #expect(sink.stats.startsWithoutFocus == 0)
    }

    @Test func aStartWithoutFocusIsCounted() {
        var sink = Self.sink(.openauto)
        _ = sink.receiveFocusRequest(Self.request(.release), now: .zero)
        _ = sink.receive(messageId: 0x8000, body: AAP.MediaSetup(type: .audioPcm).serializedBytes(), now: .zero)
        _ = sink.receive(messageId: 0x8001, body: AAP.MediaStart(sessionId: 0, configurationIndex: 0).serializedBytes(), now: .zero)
        #expect(sink.stats.startsWithoutFocus == 1)
    }

    @Test(arguments: [440.0, 880.0, 1000.0])
    func goertzelPicksTheTonePlaying(frequency: Double) throws {
        let tone = try #require(ToneDetector.dominant(in: SinkTestAudio.sine(frequency), frequencies: [440, 880, 1000]))
        #expect(tone.frequency == frequency)
        #expect(abs(tone.level - 0.5) < 0.05, "a half-scale sine reads about 0.5: \(tone.level)")
    }

    @Test func goertzelRejectsSilenceAndNothing() {
        #expect(ToneDetector.dominant(in: [Int16](repeating: 0, count: 4096)) == nil)
        #expect(ToneDetector.dominant(in: SinkTestAudio.sine(440, level: 0.001)) == nil, "−60 dBFS is below the threshold")
        #expect(ToneDetector.dominant(in: []) == nil)
    }

    @Test func goertzelOnTheSinksRecentSamples() throws {
        var sink = MediaSinkClient(car: HeadUnitConfiguration.aasdkLikeCar)
        _ = sink.receive(messageId: 0x8000, body: AAP.MediaSetup(type: .audioPcm).serializedBytes(), now: .zero)
        _ = sink.receive(messageId: 0x8001, body: AAP.MediaStart(sessionId: 0, configurationIndex: 0).serializedBytes(), now: .zero)
        _ = sink.receive(messageId: 0, body: SinkTestAudio.data(timestampUs: 0, samples: SinkTestAudio.sine(880)), now: .zero)
        let snapshot = AudioSnapshot(sink, now: .zero)
        #expect(snapshot.tone?.frequency == 880)
        #expect(snapshot.stats.packets == 1)
        let lines = ScreenRenderer.audio(snapshot)
        #expect(lines.first == "audio: channel 4, audioPcm, 48000 Hz/16 bit/2 ch, playing (session 0), focus none")
        #expect(lines.last == "  tone: 880 Hz")
    }

    @Test func wavHeaderIsExact() {
        let header = WAVHeader.bytes(sampleRate: 48_000, channels: 2, bitsPerSample: 16, dataBytes: 8192)
        #expect(
            Hex.string(header, separator: " ")
                == "52 49 46 46 24 20 00 00 57 41 56 45 66 6d 74 20 10 00 00 00 01 00 02 00 80 bb 00 00 00 ee 02 00 04 00 10 00 64 61 74 61 00 20 00 00"
        )
        #expect(header.count == WAVHeader.size)
        #expect(WAVHeader.littleEndian([1, -2, 0x1234]) == [0x01, 0x00, 0xFE, 0xFF, 0x34, 0x12])
    }

    @Test func wavFileIsPublishedWhole() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wav-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/heard.wav"
        let writer = try WAVFileWriter(path: path)
        try writer.append([1, 2, 3, 4])
        try writer.append([5, 6])
        #expect(!FileManager.default.fileExists(atPath: path), "nothing at the target before finish")
        try writer.finish()
        let bytes = try #require(FileManager.default.contents(atPath: path).map { [UInt8]($0) })
        #expect(Array(bytes.prefix(44)) == WAVHeader.bytes(dataBytes: 12))
        #expect(Array(bytes.dropFirst(44)) == WAVHeader.littleEndian([1, 2, 3, 4, 5, 6]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["heard.wav"])
    }
}
