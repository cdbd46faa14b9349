import DashportTestSupport
import DashportEmulator
import DashportHeadUnit
import DashportLog
import DashportMessages
import DashportServer
import Foundation
import Testing
import DashportLink

/// `dashport-hu connect` and `browse` against the real server, started in-process on 127.0.0.1
/// (any port) with its own state directory and the embedded demo library. Assertions about the
/// browse screens stay loose: the demo catalog belongs to another part of the project.
@Suite(.serialized) struct RealServerTests {
    /// A server on a fresh state directory (``TestServer``); `body` runs against it, then it stops
    /// (awaited) and the directory goes.
    static func withServer(_ body: (DashportServer) async throws -> Void) async throws {
        try await TestServer.with { try await body($0.server) }
    }

    @Test func connectNegotiatesWithTheServerAndSaysByeBye() async throws {
        try await Self.withServer { server in
            let output = CollectedLines()
            let outcome = await ConnectProbe.run(
                address: server.address, configuration: HeadUnitConfiguration().withDashportProfile(CarProfileOptions().profile).patient,
                identity: try TestTLS.carIdentity.get(), timeout: .seconds(30), transcript: Transcript { output.append($0) })

            #expect(outcome == .success(pings: 2))
            let lines = output.all
            #expect(lines.contains("version: the phone answered AAP 1.6"))
            #expect(lines.contains { $0.hasPrefix("tls: TLSv1.2 ECDHE-RSA-AES") && $0.contains("-GCM-SHA") })
            #expect(lines.contains("server certificate sha256: \(server.certificateFingerprint)"))
            for channel in [
                "channel 8 opened: input (6 keys)", "channel 13 opened: media playback status",
                "channel 15 opened: media browser",
            ] {
                #expect(lines.contains(channel))
            }
            #expect(lines.contains { $0.hasPrefix("channel 16 opened: dashport.media") })
            #expect(lines.contains("key binding requested: 85 86 87 88 126 127"))
            #expect(lines.contains { $0.hasPrefix("dashport.media hello: ") })
            #expect(lines.last == "bye-bye answered; done")
        }
    }

    @Test func aBrowseScriptOpensPlaysAndPausesOnTheDemoLibrary() async throws {
        try await Self.withServer { server in
            let client = try await HeadUnitClient.connect(
                to: server.address, configuration: HeadUnitConfiguration().withDashportProfile(CarProfileOptions().profile).patient,
                identity: try TestTLS.carIdentity.get())
            let car = try EmulatedShell(client: client, options: BrowseShellOptions(expectTimeout: .seconds(20)))
            let (output, shell) = (car.output, car.shell)
            try await shell.start()
            try await shell.run(
                try EmulatorScript.parse(
                    """
                    open 2
                    open 1
                    play 1
                    expect * playback: playing
                    np
                    pause
                    expect * playback: paused
                    quit
                    """))
            await client.byeBye()
            #expect(await client.closed(within: .seconds(120)) == .link(.byeBye(answered: true)))

            let lines = output.all
            #expect(lines.contains { $0.hasPrefix("dashport.media hello: ") && $0.contains("root ") })
            #expect(lines.contains("== Tabs =="))
            #expect(lines.contains { $0.hasPrefix("play ") && $0.hasSuffix(": accepted") })
            #expect(lines.contains { $0.contains(" · playing · speed 1× · repeat ") })
            #expect(lines.contains("pause: accepted"))
        }
    }

    /// `Sodium Lamps` is in Recent and in its album, Night Drive: played from each, it queues that
    /// list (issue 21, item 1: it used to queue Recent, the first parent found from the root, both times).
    @Test func theSameTrackPlayedFromTwoListsQueuesEachList() async throws {
        try await Self.withServer { server in
            let client = try await HeadUnitClient.connect(
                to: server.address, configuration: HeadUnitConfiguration().withDashportProfile(CarProfileOptions().profile).patient,
                identity: try TestTLS.carIdentity.get())
            let car = try EmulatedShell(client: client, options: BrowseShellOptions(expectTimeout: .seconds(20)))
            try await car.shell.start()
            func queue() async -> [String] { await car.session.state.queue?.items.map(\.id) ?? [] }
            let album = ["nd-1", "nd-2", "nd-3", "nd-4"]

            _ = try await car.shell.execute(.open(.id("album-night-drive")))
            _ = try await car.shell.execute(.playItem(.id("nd-2")))
            try await eventually("the album's queue") { await queue() == album }

            _ = try await car.shell.execute(.open(.id("tab-recent")))
            _ = try await car.shell.execute(.playItem(.id("nd-2")))
            try await eventually("Recent's queue") { await queue() == ["nd-2", "ep-rn-12"] }

            await client.byeBye()
            #expect(await client.closed(within: .seconds(20)) == .link(.byeBye(answered: true)))
            #expect(car.output.all.filter { $0 == "play Sodium Lamps: accepted" }.count == 2)
        }
    }
}
