import DashportHeadUnit
import DashportMPD
import DashportSession
import DashportTestSupport
import Foundation
import Testing

@testable import DashportServer

/// Gapless across a track change, end to end: MPD plays two FLAC tones made at the pipe's own
/// format (48 kHz stereo, so MPD does not resample and the samples reach the car as sox wrote
/// them) back to back through its pipe output, `dashport audio-in` and the server to a car. The
/// car's PCM across the change must be one tone and then the other with nothing between: no run
/// of silence (a gap) and, apart from the one change of tone, no break in either sine (a repeated
/// or lost stretch breaks it). Each sine is checked by its own recurrence
/// (x[n+1] = 2·cos ω·x[n] − x[n−1]), so the check needs no timing; a server underrun (MPD's
/// data late at load, padded with silence and counted) is not taken for MPD's gap.
// Real-time audio from a real mpd, checked sample by sample: beside the whole suite on two cores,
// with the QEMU USB bus taking one of them, MPD's pipe and the car's ACKs fell behind real time and
// the car heard too little within two minutes (red in two of three full runs), so it runs on request,
// alone after the suite in .ci/run: `DASHPORT_HEAVY_TESTS=1 swift test --filter MPDGaplessTests`.
@Suite(
    "MPD plays gaplessly to the car", .serialized, .enabled(if: TestMPD.installed, "mpd is not installed (tools/setup)"),
    .enabled(if: ProcessInfo.processInfo.environment["DASHPORT_HEAVY_TESTS"] == "1", "real-time audio: DASHPORT_HEAVY_TESTS=1"))
struct MPDGaplessTests {
    // High enough that each sine's recurrence tells it from the other within a sample or two.
    static let first = 2000.0
    static let second = 3000.0

    /// Where the first sine, followed from the start, first fails (`end`), and where the second,
    /// followed back from the end, last fails (`begin`): for one tone changing into the other
    /// with nothing between, they meet within a few samples; a gap, a repeated or a lost stretch
    /// inside either tone breaks its sine far from the change.
    static func change(_ left: [Double]) -> (end: Int, begin: Int) {
        let peak = left.map(abs).max() ?? 0
        let limit = max(0.01 * peak, 4)
        func holds(_ hz: Double, _ n: Int) -> Bool {
            abs(left[n + 1] - 2 * cos(2 * .pi * hz / 48_000) * left[n] + left[n - 1]) <= limit
        }
        let inner = 1..<max(1, left.count - 1)
        let end = inner.first { !holds(first, $0) } ?? left.count
        let begin = inner.last { !holds(second, $0) } ?? 0
        return (end, begin)
    }

    /// The longest run of samples near zero.
    static func longestQuiet(_ left: [Double]) -> Int {
        let limit = 0.02 * (left.map(abs).max() ?? 0)
        var (longest, run) = (0, 0)
        for value in left {
            run = abs(value) < limit ? run + 1 : 0
            longest = max(longest, run)
        }
        return longest
    }

    @Test func theCarHearsTwoTracksWithNoGapAndNoRepeat() async throws {
        let dashport = try ChildServer.built()
        let state = try TemporaryDirectory()
        defer { state.remove() }
        let serverState = state.file("server")
        let harness = try await MPDHarness.start(
            extraConfig: """
                audio_output {
                    type "pipe"
                    name "Dashport"
                    command "\(dashport) audio-in --state-dir \(serverState)"
                    format "48000:16:2"
                }
                """)
        defer { harness.kill() }
        let music = harness.musicDirectory
        try FileManager.default.createDirectory(atPath: music + "/Gapless", withIntermediateDirectories: true)
        for (name, hertz, seconds) in [("1.flac", Self.first, 2), ("2.flac", Self.second, 4)] {
            let sox = Process()
            sox.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
            sox.arguments = [
                "-D", "-n", "-r", "48000", "-c", "2", "-b", "16", music + "/Gapless/" + name, "synth", "\(seconds)", "sine", "\(hertz)",
                "vol", "0.5",
            ]
            try sox.run()
            sox.waitUntilExit()  // a short child, before the server starts
            #expect(sox.terminationStatus == 0)
        }
        try await harness.update("Gapless")
        try await TestServer.with(stateDirectory: serverState, configure: { $0.mpd = harness.socketPath }) { server in
            let input = try #require(server.server.audioInput)
            let car = try await TestCar.connect(
                to: server.server.address,
                configuration: AudioOverTCPTests.car { sink in
                    sink.retainedFrames = 48_000 * 8
                    // A window as wide as the fan-out keeps (the DHU's is 4096): a car held back
                    // by ACK round trips on a loaded machine is skipped ahead by the server
                    // (packets lost by design, not MPD's gap); with this window it reads what
                    // is there whenever it wakes.
                    sink.window = 64
                })
            try await car.waitUntil("the sink set up") { $0.audioStats?.setups == 1 }
            try await harness.run("add", "Gapless/1.flac")
            try await harness.run("add", "Gapless/2.flac")
            try await harness.run("play", "0")
            // Half a second in, MPD and its pipe are under way (the stream's start may wait on
            // MPD's first write); what the car hears from there on is checked: the change comes
            // 1.5 s later, and 3 s of packets after the mark hold it with room on each side.
            try await car.waitUntil("half a second of MPD's audio", timeout: .seconds(120)) { ($0.audioStats?.packets ?? 0) >= 12 }
            let underrunsBefore = input.statistics.underrunFrames
            let mark = await car.audioStats?.packets ?? 0
            try await car.waitUntil("three seconds more", timeout: .seconds(120)) { ($0.audioStats?.packets ?? 0) >= mark + 70 }
            let samples = await car.heardSamples
            let packets = (await car.audioStats?.packets ?? 0) - mark
            let left = stride(from: 0, to: samples.count, by: 2).map { Double(samples[$0]) }
            let heard = Array(left.suffix(packets * 2048))
            let underran = input.statistics.underrunFrames > underrunsBefore
            if underran {
                // MPD's data came late (a loaded machine): the server padded silence and counted it
                // (its own test covers underruns). That silence is not MPD's gap, so there is
                // nothing to hold MPD to in this run.
                print("MPDGaplessTests: the server's input underran; gaps not checked in this run")
                return
            }
            #expect(Self.longestQuiet(heard) < 16, "a gap: \(Self.longestQuiet(heard)) quiet samples")
            // The first tone up to the change, the second from it: they meet within a few samples.
            let (end, begin) = Self.change(heard)
            #expect(begin < end + 8, "the first tone breaks at \(end), the second from \(begin) on (of \(heard.count))")
            #expect(end > 4800 && heard.count - begin > 4800, "the change inside the window: \(end)…\(begin) of \(heard.count)")
        }
    }
}
