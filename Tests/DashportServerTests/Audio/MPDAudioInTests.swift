import DashportHeadUnit
import DashportSession
import DashportTestSupport
import Foundation
import Testing

@testable import DashportServer

/// A real mpd whose pipe output runs the built `dashport audio-in` feeds a car through the server:
/// the car hears the file's tone; mpd's pause closes the pipe and audio-in goes; mpd keeps
/// answering throughout (nothing blocks it), with a car or without.
@Suite("MPD's pipe output to a car", .serialized, .enabled(if: TestMPD.installed, "mpd is not installed (tools/setup)"))
struct MPDAudioInTests {
    @Test func mpdPlayingAToneFileIsHeardByACar() async throws {
        let dashport = try ChildServer.built()
        let state = try TemporaryDirectory()
        defer { state.remove() }
        try await TestServer.with(stateDirectory: state.file("server"), handler: ExternalPlayer()) { server in
            let input = try #require(server.server.audioInput)
            let mpd = try await TestMPD.start(
                audioIn: "\(dashport) audio-in --state-dir \(server.stateDirectory)", files: ["tone.wav": toneWAV(hz: 1000, seconds: 30)])
            do {
                let car = try await TestCar.connect(to: server.server.address, configuration: AudioOverTCPTests.car())
                try await car.waitUntil("the sink set up") { $0.audioStats?.setups == 1 }
                try await server.server.core.session.broadcaster.setPlaybackState(
                    PlaybackState(status: .playing, capabilities: [.play, .pause]))
                _ = try await mpd.send(["add tone.wav", "play"])
                try await eventually("mpd's audio-in connected") { input.hasWriter }
                try await car.waitUntil("a second of mpd's audio") { ($0.audioStats?.packets ?? 0) >= 24 }
                #expect(
                    ToneDetector.dominant(in: await car.heardSamples, frequencies: [440, 1000, 1500])?.frequency == 1000, "\(mpd.log)")
                #expect(try await mpd.status("state") == "play")
                // elapsed follows what the server took: no more than the audio pulled plus the
                // bounded lead (server ring, socket and pipe buffers, mpd's own buffer), never a race ahead.
                let elapsed = Double(try await mpd.status("elapsed") ?? "") ?? -1
                let pulled = Double(input.statistics.framesOut) / 48_000
                #expect(elapsed > 0 && elapsed < pulled + 5, "elapsed \(elapsed) s, pulled \(pulled) s")

                // The car goes: mpd is still drained (its status answers, elapsed moves on).
                await car.abort()
                try await eventually("no car listens") { !input.isListening }
                let before = input.statistics.framesOut
                try await eventually("drained without a car") { input.statistics.framesOut > before + 24_000 }
                #expect(try await mpd.status("state") == "play")

                // mpd pauses: it closes the pipe, audio-in sees its input end and goes.
                _ = try await mpd.send(["pause 1"])
                try await eventually("audio-in gone after mpd's pause") { !input.hasWriter }
                #expect(try await mpd.status("state") == "pause")
            } catch {
                Issue.record("mpd log:\n\(mpd.log)")
                await mpd.stop()
                throw error
            }
            await mpd.stop()
        }
    }

    /// The example tools/mpd/mpd.conf is one the real mpd takes: with its paths moved into a
    /// temporary directory it starts and lists the Dashport pipe output and the Pi's ALSA output.
    @Test func theExampleConfigurationStartsMPDWithItsTwoOutputs() async throws {
        let example = try String(contentsOfFile: ChildServer.root.appendingPathComponent("tools/mpd/mpd.conf").path, encoding: .utf8)
        #expect(example.contains(#"command         "/usr/local/bin/dashport audio-in --state-dir /var/lib/dashport""#))
        #expect(example.contains(#"format          "48000:16:2""#))
        let mpd = try await TestMPD.start { directory in
            example
                .replacingOccurrences(of: "\"/srv/music\"", with: "\"\(directory.file("music"))\"")
                .replacingOccurrences(of: "\"/var/lib/mpd/playlists\"", with: "\"\(directory.file("music"))\"")
                .replacingOccurrences(of: "/var/lib/mpd/", with: directory.path + "/")
                .replacingOccurrences(of: "\"syslog\"", with: "\"\(directory.file("log"))\"")
                .replacingOccurrences(of: "/run/mpd/socket", with: directory.file("socket"))
                .replacingOccurrences(of: #"bind_to_address     "any""#, with: "")
                .replacingOccurrences(of: #"port                "6600""#, with: "")
                .replacingOccurrences(of: #"auto_update         "yes""#, with: #"auto_update "no""#)
        }
        let outputs = try await mpd.send(["outputs"])
        await mpd.stop()
        #expect(outputs.contains("outputname: Dashport") && outputs.contains("plugin: pipe"), "\(outputs)")
        #expect(outputs.contains("outputname: Pi") && outputs.contains("plugin: alsa"), "\(outputs)")
    }
}
