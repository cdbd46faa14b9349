import DashportTestSupport
import DashportEmulator
import DashportHeadUnit
import DashportLink
import DashportMessages
import Foundation
import Testing
import DashportTLS

/// `dashport-hu connect` and a `browse --script` run against an in-process phone (``FakePhone``:
/// a real PhoneLink on loopback TCP with a faked media channel), asserting the printed screens.
@Suite struct EmulatorEndToEndTests {
    static let configuration = HeadUnitConfiguration().withDashportProfile(CarProfileOptions().profile).patient

    @Test func connectPrintsWhatWasNegotiatedAndSaysByeBye() async throws {
        let phone = try FakePhone()
        let output = CollectedLines()
        let outcome = await ConnectProbe.run(
            address: phone.address, configuration: Self.configuration, identity: try TestTLS.carIdentity.get(),
            timeout: .seconds(20), transcript: Transcript { output.append($0) })
        // Two pings are waited for; one more may arrive while the bye-bye is on its way.
        guard case .success(let pings) = outcome else {
            Issue.record("connect failed: \(outcome)")
            return
        }
        #expect(pings >= 2)
        let lines = output.all
        #expect(lines.first == "connecting to \(phone.address), asking for AAP 1.6")
        #expect(lines.contains("version: the phone answered AAP 1.6"))
        #expect(lines.contains { $0.hasPrefix("tls: TLSv1.2 ECDHE-RSA-AES") && $0.contains("-GCM-SHA") })
        #expect(lines.contains("server certificate sha256: \(try TestTLS.phoneIdentity.get().fingerprintSHA256)"))
        #expect(lines.contains("discovery: requested by \"Dashport on Linux\", label \"Dashport\""))
        for channel in [
            "channel 8 opened: input (6 keys)", "channel 13 opened: media playback status",
            "channel 15 opened: media browser",
        ] {
            #expect(lines.contains(channel))
        }
        #expect(lines.contains { $0.hasPrefix("channel 16 opened: dashport.media (vendor extension, ") })
        #expect(lines.contains("dashport.media hello: Fake 0.1, root root, search yes, 8 requests in flight, pages up to 50"))
        #expect(lines.filter { $0.hasPrefix("ping from the phone (") }.count >= 2)
        // A ping already on its way may still be printed after "saying bye-bye".
        #expect(lines.contains("saying bye-bye"))
        #expect(lines.last == "bye-bye answered; done")
    }

    /// A hello that comes after the pings (beside `stress --cpu 4` the phone's 20-ms pings came
    /// first, and the probe said bye-bye without it): the probe waits for it, then says bye-bye.
    @Test func connectWaitsForTheHelloThatComesAfterThePings() async throws {
        var media = FakeMediaServer()
        media.helloDelay = .milliseconds(300)
        let phone = try FakePhone(media: media)
        let output = CollectedLines()
        let outcome = await ConnectProbe.run(
            address: phone.address, configuration: Self.configuration, identity: try TestTLS.carIdentity.get(),
            timeout: .seconds(60), transcript: Transcript { output.append($0) })
        guard case .success(let pings) = outcome else {
            Issue.record("connect failed: \(outcome)")
            return
        }
        #expect(pings == 2)
        let lines = output.all
        let hello = try #require(lines.firstIndex { $0.hasPrefix("dashport.media hello: ") }, "\(lines)")
        let bye = try #require(lines.firstIndex(of: "saying bye-bye"), "\(lines)")
        #expect(hello < bye)
        #expect(lines.last == "bye-bye answered; done")
    }

    @Test(.timeLimit(.minutes(2))) func connectFailsClearlyWhenThePhoneNeverPings() async throws {
        // The phone's first ping is an hour away. The probe's limit runs on a manual clock, moved
        // only once the link is up, so the only way to fail is the missing ping, however slow the machine.
        let phone = try FakePhone(configuration: LinkConfiguration(pingInterval: .seconds(3600)))
        let clock = ManualClock()
        let output = CollectedLines()
        let identity = try TestTLS.carIdentity.get()
        async let outcome = ConnectProbe.run(
            address: phone.address, configuration: Self.configuration, identity: identity,
            timeout: .seconds(8), transcript: Transcript { output.append($0) }, clock: clock)
        try await eventually("the media channel hello") { output.all.contains { $0.hasPrefix("dashport.media hello:") } }
        await clock.waitForSleeper(dueAt: .seconds(8))
        await clock.advance(by: .seconds(8))
        #expect(await outcome == .failure("no ping from the phone within 8 s"))
    }

    @Test func aBrowseScriptDrawsEveryScreen() async throws {
        let phone = try FakePhone()
        let artDirectoryDirectory = try TemporaryDirectory()
        defer { artDirectoryDirectory.remove() }
        let artDirectory = artDirectoryDirectory.path
        let script = try EmulatorScript.parse(
            """
            # albums, a cover, play, pause, now playing, a refused seek
            open 1
            art 1
            play 1
            expect * playback: playing
            pause
            expect * playback: paused
            np
            seek 30
            back
            open 2
            open 9
            search miles
            quit
            np
            """)
        let (output, shell) = try await Self.shell(phone: phone, options: BrowseShellOptions(saveArtDirectory: artDirectory))
        try await shell.start()
        try await shell.run(script)
        let lines = output.all

        let tabs = [
            "== Tabs ==", "page 1 · 3 of 3 items", "  1   ›   Albums  [albums]", "  2   ›   Locked  [locked]",
            "  3   ›   Podcasts  [podcasts]",
        ]
        #expect(Self.contains(lines, tabs))
        #expect(Self.contains(lines, ["> open 1", "== Albums ==", "style grid · page 1 · 3 of 3 items", "-- Jazz --"]))
        #expect(lines.contains("art cover-1: image/png 64×64, 8 bytes → \(artDirectory)/cover-1.png"))
        #expect(FileManager.default.contents(atPath: artDirectory + "/cover-1.png").map(Array.init) == FakeMediaServer.png)
        #expect(lines.contains("play So What: accepted"))
        #expect(lines.contains("pause: accepted"))
        #expect(
            Self.contains(
                lines,
                [
                    "== Now playing ==", "So What", "Miles Davis — Kind of Blue",
                    "0:42 / 9:05 · paused · speed 1× · repeat off · shuffle off",
                    "queue:", "  >  1  So What · Miles Davis", "     2  Blue in Green · Miles Davis",
                ]))
        #expect(lines.contains("seek to 0:30: rejected (notInCapabilities): seeking is not declared"))
        #expect(Self.contains(lines, ["> back"] + tabs))
        #expect(
            Self.contains(
                lines,
                [
                    "> open 2", "== Locked ==", "! authenticationExpired: Sign in to see this", "  [Sign in] https://example.com/login",
                ]))
        #expect(Self.contains(lines, ["> open 9", "! no row 9 on screen (0 rows)"]))
        #expect(
            Self.contains(
                lines, ["== Search: miles ==", "page 1 · 1 of 1 item", "-- Jazz --", "  1  ▶    So What · Miles Davis  9:05  [t1]"]))
        #expect(lines.filter { $0 == "== Now playing ==" }.count == 1, "nothing runs after quit")

        let requests = try await phone.firstConnection().mediaRequests.map(\.0)
        #expect(requests == [0x8003, 0x8003, 0x8010, 0x8008, 0x800A, 0x800A, 0x8003, 0x8003, 0x8005])
        await shell.session.client.close()
    }

    @Test func anUnmetExpectationNamesItsLine() async throws {
        let phone = try FakePhone()
        let (_, shell) = try await Self.shell(phone: phone, options: BrowseShellOptions(expectTimeout: .milliseconds(50)))
        try await shell.start()
        await #expect(throws: BrowseShellError.expectationFailed(text: "Nonexistent", line: 2)) {
            try await shell.run(try EmulatorScript.parse("np\nexpect Nonexistent\n"))
        }
        await shell.session.client.close()
    }

    /// The request's limit runs on the client's clock: a manual clock makes the timeout happen when
    /// the test says, never because the machine was slow. If the session slept on real time instead,
    /// nothing would sleep on the manual clock and the test would hit its time limit.
    @Test(.timeLimit(.minutes(2))) func anUnansweredRequestTimesOutOnTheClientsClockAndIsForgotten() async throws {
        let phone = try FakePhone()
        let clock = ManualClock()
        let client = try await HeadUnitClient.connect(
            to: phone.address, configuration: Self.configuration, identity: try TestTLS.carIdentity.get(), clock: clock)
        let session = try MediaChannelSession.start(client: client, timeout: .seconds(30))
        _ = try await session.hello()
        let limit = Duration.seconds(3600)
        let unanswered = Task {
            try await session.request(.getChildren(parentId: "silent", page: nil, pageSize: nil), within: limit)
        }
        await clock.waitForSleeper(dueAt: limit)
        #expect(await session.state.inFlight.count == 1)
        await clock.advance(by: limit - .milliseconds(1))
        await clock.waitForSleeper(dueAt: limit)  // a millisecond early: still waiting
        await clock.advance(by: .milliseconds(1))
        await #expect(throws: MediaSessionError.timedOut("answer to GET_CHILDREN silent (request 1)", limit)) {
            _ = try await unanswered.value
        }
        #expect(await session.state.inFlight.isEmpty)
        // The session goes on: the next request is answered.
        guard case .browse(let result) = try await session.request(.getChildren(parentId: "root", page: nil, pageSize: nil)) else {
            Issue.record("a browse request got another kind of answer")
            return
        }
        #expect(result.requestId == 2)
        await client.close()
        #expect(await client.closed(within: .seconds(3600)) == .closedLocally)
        await #expect(throws: MediaSessionError.closed(.closedLocally)) {
            _ = try await session.request(.getItem(id: "t1"))
        }
    }

    /// A connected shell whose output, notices included, goes to the returned lines.
    static func shell(phone: FakePhone, options: BrowseShellOptions) async throws -> (CollectedLines, BrowseShell) {
        let client = try await HeadUnitClient.connect(
            to: phone.address, configuration: configuration, identity: try TestTLS.carIdentity.get())
        let car = try EmulatedShell(client: client, options: options)
        return (car.output, car.shell)
    }

    /// Whether `block` appears in `lines` as consecutive lines.
    static func contains(_ lines: [String], _ block: [String]) -> Bool {
        guard block.count <= lines.count else { return false }
        return (0...(lines.count - block.count)).contains { Array(lines[$0..<$0 + block.count]) == block }
    }
}
