import DashportHeadUnit
import Foundation
import Testing

/// The checks the USB VM test makes on what its car heard, on made-up recordings: so a failure
/// of the VM test means the audio was wrong, not that the checker was.
@Suite struct HeardAudioTests {
    static let demoTones: [Double] = [220, 293.66, 440, 523.25, 880]

    /// `seconds` of a stereo sine at a quarter of full scale, as a WAV file's bytes.
    static func wav(_ hz: Double, seconds: Double) -> [UInt8] {
        let frames = Int(seconds * 48_000)
        var samples = [Int16](repeating: 0, count: 2 * frames)
        for frame in 0..<frames {
            let value = Int16(8192 * sin(2 * Double.pi * hz * Double(frame) / 48_000))
            samples[2 * frame] = value
            samples[2 * frame + 1] = value
        }
        return WAVHeader.bytes(dataBytes: samples.count * 2) + WAVHeader.littleEndian(samples)
    }

    static func times(first: (Double, Int), second: (Double, Int)) -> String {
        "item nl-1\nnp \(first.0) 10 \(first.1) 0\nnp \(second.0) 80 \(second.1) 0\n"
    }

    @Test func theTracksToneAtTheRealTimeRatePasses() throws {
        let heard = try HeardAudio(times: Self.times(first: (20.5, 288_000), second: (23.52, 867_840)), wav: Self.wav(220, seconds: 4.7))
        #expect(heard.item == "nl-1")
        #expect(heard.views.map(\.bytes) == [288_000, 867_840])
        #expect(abs(heard.rate - 192_000) < 100)
        #expect(heard.problems(toneHz: 220, candidates: Self.demoTones) == [])
    }

    @Test func anotherToneIsNamedWithWhereItWasHeard() throws {
        let heard = try HeardAudio(times: Self.times(first: (20, 288_000), second: (23, 864_000)), wav: Self.wav(440, seconds: 4.7))
        let problems = heard.problems(toneHz: 220, candidates: Self.demoTones)
        #expect(!problems.isEmpty)
        #expect(problems.allSatisfy { $0.contains("heard 440.0 Hz") && $0.contains("not the track's 220.0 Hz") }, "\(problems)")
    }

    @Test func silenceIsNoTone() throws {
        let silence = WAVHeader.bytes(dataBytes: 4 * 96_000) + [UInt8](repeating: 0, count: 4 * 96_000)
        let heard = try HeardAudio(times: Self.times(first: (20, 288_000), second: (23, 864_000)), wav: silence)
        let problems = heard.problems(toneHz: 220, candidates: Self.demoTones)
        #expect(problems.contains { $0.contains("carry no tone above −20 dBFS") }, "\(problems)")
    }

    /// A skip ahead under load (a phase jump) may weaken one window's tone; one in nine passes,
    /// and the tone is still required of the rest.
    @Test func oneWeakWindowAmongManyPasses() throws {
        var bytes = Self.wav(220, seconds: 4.7)
        let header = WAVHeader.bytes(dataBytes: 0).count
        // Half a second of silence where the fourth window is.
        let start = header + 4 * (4_800 + 3 * 24_000)
        for index in start..<(start + 4 * 24_000) { bytes[index] = 0 }
        let heard = try HeardAudio(times: Self.times(first: (20.5, 288_000), second: (23.52, 867_840)), wav: bytes)
        #expect(heard.problems(toneHz: 220, candidates: Self.demoTones) == [])
    }

    @Test(arguments: [(576_000, true), (403_200, true), (1_440_000, false), (300_000, false), (1_200_000, false)])
    func aRateFasterThanRealTimeOrAStalledStreamFails(second: Int, passes: Bool) throws {
        // From 288 000 bytes at 20 s to `second` at 23 s: 96 000 (half), 38 400 (a fifth, as a
        // loaded TCG VM), 384 000 (twice real time: a burst), 4 000 (2%: stalled) and 304 000
        // bytes/s (1.58×: too fast).
        let heard = try HeardAudio(times: Self.times(first: (20, 288_000), second: (23, second)), wav: Self.wav(220, seconds: 8))
        let problems = heard.problems(toneHz: 220, candidates: Self.demoTones)
        if passes {
            #expect(problems == [])
        } else {
            #expect(problems.count == 1)
            #expect(problems.first?.contains("bytes/s, outside 5…125% of real time") == true, "\(problems)")
        }
    }

    @Test func nothingBeforeTheFirstViewAndAShortWAVFail() throws {
        let heard = try HeardAudio(times: Self.times(first: (20, 0), second: (23, 1_000_000)), wav: Self.wav(220, seconds: 0.5))
        let problems = heard.problems(toneHz: 220, candidates: Self.demoTones)
        #expect(problems.contains { $0.hasPrefix("no audio had arrived at the first np") })
        #expect(problems.contains { $0.contains("fewer than the 1000000 np counted") })
        #expect(problems.contains { $0.contains("less than 0.7 s of audio") })
    }

    @Test func malformedFilesSayWhatIsWrong() {
        let wav = Self.wav(220, seconds: 1)
        #expect(throws: HeardAudio.Problem.self) { try HeardAudio(times: "np 1 2 3\n", wav: wav) }
        #expect(throws: HeardAudio.Problem.self) { try HeardAudio(times: "item nl-1\nnp 20 1 2 0\n", wav: wav) }
        #expect(throws: HeardAudio.Problem.self) { try HeardAudio(times: Self.times(first: (20, 0), second: (23, 1)), wav: [1, 2, 3]) }
        var wrongRate = wav
        wrongRate[24] = 0x44  // the sample rate field: 47940 Hz, not 48000
        #expect(throws: HeardAudio.Problem.self) { try HeardAudio(times: Self.times(first: (20, 0), second: (23, 1)), wav: wrongRate) }
    }
}
