import DashportHeadUnit
import DashportMPD
import DashportSession
import DashportTestSupport
import Foundation
import Testing

@testable import DashportServer

/// Issue 19 end to end: one server with MPD as its library and player (`--mpd`) and MPD's pipe
/// output feeding `dashport audio-in`: the car hears the song MPD plays, and the next one after
/// `mpc next` (a passenger's app), each at its own frequency; with no car listening MPD's pipe
/// output is switched off, and on again when a car comes.
@Suite("MPD's library and its sound in one server", .serialized, .enabled(if: TestMPD.installed, "mpd is not installed (tools/setup)"))
struct MPDLibraryAudioTests {
    static func hertz(_ path: String) throws -> Double {
        Double(try #require(MPDLibrary.tracks.first { $0.path == path }).hertz)
    }

    /// Whether MPD's output named Dashport is enabled, asked over MPD's protocol (never `mpc`,
    /// which would block a thread of the test pool while MPD answers).
    static func pipeEnabled(_ mpd: MPDConnection) async throws -> Bool? {
        let outputs = try await mpd.run(MPDCommand("outputs")).records(startingAt: ["outputid"])
        let pipe = outputs.first { record in record.contains { $0.key == "outputname" && $0.value == "Dashport" } }
        return pipe?.first { $0.key == "outputenabled" }.map { $0.value == "1" }
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
            let mpd = try await harness.connect()
            defer { mpd.close() }
            _ = try await mpd.run(MPDCommand("add", first))
            _ = try await mpd.run(MPDCommand("add", second))
            _ = try await mpd.run(MPDCommand("play"))
            try await eventually("mpd's audio-in connected", timeout: .seconds(60)) { input.hasWriter }
            try await car.waitUntil("two seconds of mpd's audio", timeout: .seconds(60)) { ($0.audioStats?.packets ?? 0) >= 48 }
            let heard = ToneDetector.dominant(in: await car.heardSamples, frequencies: candidates)?.frequency
            #expect(heard == (try Self.hertz(first)), "mpd log: \(harness.logPath)")

            // A passenger's app skips: the car hears the next song.
            _ = try await mpd.run(MPDCommand("next"))
            let after = await car.audioStats?.packets ?? 0
            try await car.waitUntil("three seconds more", timeout: .seconds(60)) { ($0.audioStats?.packets ?? 0) >= after + 72 }
            let next = ToneDetector.dominant(in: await car.heardSamples, frequencies: candidates)?.frequency
            #expect(next == (try Self.hertz(second)))
            #expect(try await Self.pipeEnabled(mpd) == true)

            // The car goes: nobody listens, so MPD's pipe output is switched off (its other
            // outputs play on their own); a car that comes back switches it on and hears MPD.
            await car.abort()
            try await eventually("the pipe output off", timeout: .seconds(60)) { try await Self.pipeEnabled(mpd) == false }
            try await server.waitForLog("no car listens: MPD's pipe output is off")
            let back = try await TestCar.connect(to: server.server.address, configuration: AudioOverTCPTests.car())
            try await eventually("the pipe output on", timeout: .seconds(60)) { try await Self.pipeEnabled(mpd) == true }
            try await back.waitUntil("a second of mpd's audio again", timeout: .seconds(60)) { ($0.audioStats?.packets ?? 0) >= 24 }
            #expect(ToneDetector.dominant(in: await back.heardSamples, frequencies: candidates)?.frequency == (try Self.hertz(second)))
            await back.abort()
        }
    }
}
