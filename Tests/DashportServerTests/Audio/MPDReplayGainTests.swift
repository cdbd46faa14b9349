import DashportHeadUnit
import DashportMPD
import DashportSession
import DashportTestSupport
import Foundation
import Testing

@testable import DashportServer

/// The library's one ReplayGain tag, heard: with `replaygain "track"` in mpd.conf, MPD plays
/// Noon (tagged `REPLAYGAIN_TRACK_GAIN=-3.00 dB`) 3 dB quieter than Dawn (no tag; the same sox
/// sine otherwise), and the car hears it so through the server (MPD applies the gain; Dashport
/// passes its PCM on untouched).
@Suite(
    "MPD's ReplayGain heard by a car", .serialized, .enabled(if: TestMPD.installed, "mpd is not installed (tools/setup)"),
    // Real-time audio measured by level: beside stress --cpu 4 the half second heard held
    // underrun padding and the ratio fell out of its band, so it runs with the other heavy tests.
    .enabled(if: ProcessInfo.processInfo.environment["DASHPORT_HEAVY_TESTS"] == "1", "real-time audio: DASHPORT_HEAVY_TESTS=1"))
struct MPDReplayGainTests {
    /// The level of `hertz` in the last half second the car heard (48 kHz stereo).
    static func level(_ samples: [Int16], _ hertz: Double) -> Double? {
        ToneDetector.dominant(in: Array(samples.suffix(48_000)), frequencies: [220, 275]).flatMap { $0.frequency == hertz ? $0.level : nil }
    }

    @Test func aTrackWithAReplayGainTagIsHeardThreeDecibelsQuieter() async throws {
        let dashport = try ChildServer.built()
        let state = try TemporaryDirectory()
        defer { state.remove() }
        let serverState = state.file("server")
        let harness = try await MPDHarness.start(
            extraConfig: """
                replaygain "track"
                audio_output {
                    type "pipe"
                    name "Dashport"
                    command "\(dashport) audio-in --state-dir \(serverState)"
                    format "48000:16:2"
                }
                """)
        defer { harness.kill() }
        try await TestServer.with(stateDirectory: serverState, configure: { $0.mpd = harness.socketPath }) { server in
            let input = try #require(server.server.audioInput)
            let car = try await TestCar.connect(to: server.server.address, configuration: AudioOverTCPTests.car())
            try await car.waitUntil("the sink set up") { $0.audioStats?.setups == 1 }
            let mpd = try await harness.connect()
            defer { mpd.close() }
            _ = try await mpd.run(MPDCommand("add", "Ann Artist/Alpha/c-Dawn.flac"))  // 220 Hz, no tag
            _ = try await mpd.run(MPDCommand("add", "Ann Artist/Alpha/b-Noon.flac"))  // 275 Hz, -3 dB
            _ = try await mpd.run(MPDCommand("play"))
            try await eventually("mpd's audio-in connected", timeout: .seconds(60)) { input.hasWriter }
            try await car.waitUntil("two seconds of Dawn", timeout: .seconds(60)) { ($0.audioStats?.packets ?? 0) >= 48 }
            let dawn = try #require(Self.level(await car.heardSamples, 220), "Dawn's 220 Hz not heard; mpd log: \(harness.logPath)")
            _ = try await mpd.run(MPDCommand("next"))
            let after = await car.audioStats?.packets ?? 0
            try await car.waitUntil("three seconds more", timeout: .seconds(60)) { ($0.audioStats?.packets ?? 0) >= after + 72 }
            let noon = try #require(Self.level(await car.heardSamples, 275), "Noon's 275 Hz not heard")
            // -3 dB is a factor of 0.708 in amplitude; without the gain it would be 1.
            let ratio = noon / dawn
            #expect(ratio > 0.63 && ratio < 0.79, "Noon/Dawn amplitude \(ratio) (Dawn \(dawn), Noon \(noon))")
        }
    }
}
