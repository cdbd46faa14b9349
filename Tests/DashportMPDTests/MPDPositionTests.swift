import DashportClock
import DashportLog
import DashportMPD
import DashportMPDSource
import DashportSession
import DashportTestSupport
import Foundation
import Testing

/// The session's position under MPD is MPD's `elapsed` minus MPD's lead in the pipe: what MPD
/// wrote into its pipe output that the cars were not sent yet (the server's audio input holds it,
/// buffered or still in its socket). A real mpd plays (its null output, in real time); the input
/// is the server's own `SessionAudioInput`, filled as MPD's pipe would fill it and never pulled,
/// so its lead stays what was written. MPD's `elapsed` is read just before and just after each
/// sync, so the bounds hold whatever the machine's speed.
@Suite struct MPDPositionTests {
    static func elapsedMs(_ harness: MPDHarness) async throws -> Int64 {
        let elapsed = try #require(try await harness.run("status")["elapsed"].flatMap(Double.init))
        return Int64(elapsed * 1000)
    }

    @Test func thePositionIsMPDsElapsedMinusThePipesLead() async throws {
        let harness = try await MPDHarness.start()
        let client = MPDClient(configuration: MPDClient.Configuration(address: harness.address), clock: SystemClock(), logger: .silent)
        await client.start()
        defer { Task { await client.stop() } }
        let library = MPDLibraryProvider(client: client, coverDirectory: harness.directory.file("covers"), logger: .silent)
        var player = MPDPlaybackHandler(library: library, clock: SystemClock(), logger: .silent)
        var core = SessionCore(handler: player, clock: SystemClock())
        try await harness.run("add", "Ann Artist/Alpha/c-Dawn.flac")
        try await harness.run("play", "0")
        try await harness.run("seekcur", "10")  // past any lead, so nothing is clamped at 0
        func sync() async throws -> (before: Int64, anchor: Int64, after: Int64) {
            let before = try await Self.elapsedMs(harness)
            try await core.exclusive { [player] session in try await player.sync(session: session) }
            let after = try await Self.elapsedMs(harness)
            return (before, await core.playbackState.position.valueMs, after)
        }

        // No audio input: MPD's elapsed as it is.
        let plain = try await sync()
        #expect(await core.playbackState.status == .playing)
        #expect(plain.before <= plain.anchor + 1 && plain.anchor <= plain.after, "\(plain)")

        // MPD wrote as much as the input holds, none of it pulled yet: 512 ms of lead.
        let input = SessionAudioInput()
        input.writerBegan()
        _ = input.write([UInt8](repeating: 0, count: SessionAudioInput.capacityBytes))
        let lead = Int64(SessionAudioInput.capacityBytes / SessionAudioFormat.bytesPerFrame) * 1000 / 48_000
        #expect(input.leadMs == lead)
        // A fresh session (nothing shown yet), so the anchor is the one this sync reads, whatever
        // the delays of a loaded machine did to the one shown before.
        player = MPDPlaybackHandler(library: library, clock: SystemClock(), logger: .silent)
        core = SessionCore(handler: player, clock: SystemClock())
        await player.hear(input)
        let led = try await sync()
        #expect(led.before - lead <= led.anchor + 1 && led.anchor <= led.after - lead, "\(led), lead \(lead) ms")

        // Paused, the lead plays out and stops where MPD stopped: MPD's elapsed exactly.
        try await harness.run("pause", "1")
        let paused = try await sync()
        #expect(await core.playbackState.status == .paused)
        #expect(paused.anchor == paused.before && paused.before == paused.after, "\(paused)")
        input.writerEnded()
    }
}
