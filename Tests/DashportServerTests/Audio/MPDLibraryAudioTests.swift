import DashportHeadUnit
import DashportSession
import DashportTestSupport
import Foundation
import Testing

@testable import DashportServer

/// Issue 19 end to end: one server with MPD as its library and player (`--mpd`) and MPD's pipe
/// output feeding `dashport audio-in`: the car hears the song MPD plays, and the next one after
/// `mpc next` (a passenger's app), each at its own frequency.
@Suite("MPD's library and its sound in one server", .serialized, .enabled(if: TestMPD.installed, "mpd is not installed (tools/setup)"))
struct MPDLibraryAudioTests {
    static func hertz(_ path: String) throws -> Double {
        Double(try #require(MPDLibrary.tracks.first { $0.path == path }).hertz)
    }

    @Test func aCarHearsTheSongMPDPlaysThenTheNext() async throws {
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
        let first = "Ann Artist/Alpha/c-Dawn.flac"
        let second = "Bob Band/Beta/01 Rise.ogg"
        let candidates = MPDLibrary.tracks.map { Double($0.hertz) }
        try await TestServer.with(stateDirectory: serverState, configure: { $0.mpd = harness.socketPath }) { server in
            let input = try #require(server.server.audioInput)
            let car = try await TestCar.connect(to: server.server.address, configuration: AudioOverTCPTests.car())
            try await car.waitUntil("the sink set up") { $0.audioStats?.setups == 1 }
            _ = try harness.mpc("add", first)
            _ = try harness.mpc("add", second)
            _ = try harness.mpc("play")
            try await eventually("mpd's audio-in connected", timeout: .seconds(60)) { input.hasWriter }
            try await car.waitUntil("two seconds of mpd's audio", timeout: .seconds(60)) { ($0.audioStats?.packets ?? 0) >= 48 }
            let heard = ToneDetector.dominant(in: await car.heardSamples, frequencies: candidates)?.frequency
            #expect(heard == (try Self.hertz(first)), "mpd log: \(harness.logPath)")

            // A passenger's app skips: the car hears the next song.
            _ = try harness.mpc("next")
            let after = await car.audioStats?.packets ?? 0
            try await car.waitUntil("three seconds more", timeout: .seconds(60)) { ($0.audioStats?.packets ?? 0) >= after + 72 }
            let next = ToneDetector.dominant(in: await car.heardSamples, frequencies: candidates)?.frequency
            #expect(next == (try Self.hertz(second)))
            await car.abort()
        }
    }
}
