import DashportTestSupport
import DashportHeadUnit
import DashportMessages
import Testing
@testable import DashportEmulator

/// The emulator side of the session contract: it parses and sends the new commands, shows the new
/// state, and keeps pushes from cutting into a screen.
@Suite struct EmulatorContractTests {
    @Test func customActionsAndVolumeParse() throws {
        #expect(try EmulatorCommand.parse("action 1") == .customAction("1", extras: [:]))
        #expect(
            try EmulatorCommand.parse("action favourite mood=happy n=2") == .customAction("favourite", extras: ["mood": "happy", "n": "2"]))
        #expect(throws: EmulatorCommandError("action: extras are key=value, got \"oops\"")) {
            try EmulatorCommand.parse("action like oops")
        }
        #expect(try EmulatorCommand.parse("volume up") == .transport(.adjustDeviceVolume(1)))
        #expect(try EmulatorCommand.parse("vol down") == .transport(.adjustDeviceVolume(-1)))
        #expect(try EmulatorCommand.parse("volume mute") == .transport(.setDeviceMuted(true)))
        #expect(try EmulatorCommand.parse("volume 40%") == .transport(.setDeviceVolume(0.4)))
        #expect(throws: EmulatorCommandError.self) { try EmulatorCommand.parse("volume 140") }
        #expect(try EmulatorCommand.parse("key volup") == .key(24))
        #expect(try EmulatorCommand.parse("key mute") == .key(164))
        #expect(ScreenRenderer.describe(.adjustDeviceVolume(-2)) == "volume down 2 steps")
    }

    @Test func nowPlayingShowsMetadataSpeedSleepTimerVolumeAndActions() throws {
        var client = MediaChannelClient()
        let item = DashportMedia.MediaItem(
            id: "t", title: "Track", artist: "Artist", album: "Album", durationMs: 200_000, subtitle: "Live at home",
            albumArtist: "Various", genre: "Jazz", trackNumber: 4, discNumber: 2, year: 1959,
            extras: [.init(key: "label", value: "Columbia")])
        _ = try client.receive(messageId: 0x800D, body: DashportMedia.MediaItemState(item: item).serializedBytes(), now: .zero)
        let state = DashportMedia.PlaybackState(
            status: .paused, position: DashportMedia.PositionAnchor(valueMs: 30_000, atMs: 0, rate: 0), sentAtMs: 0,
            customActions: [DashportMedia.CustomActionInfo(name: "favourite", label: "Favourite")], speed: 1.5)
        _ = try client.receive(messageId: 0x800C, body: state.serializedBytes(), now: .zero)
        let sleep = DashportMedia.SleepTimerState(mode: .duration, remainingMs: 300_000, sentAtMs: 0)
        _ = try client.receive(messageId: 0x8012, body: sleep.serializedBytes(), now: .zero)
        let remote = DashportMedia.RemotePlaybackState(
            remote: DashportMedia.RemotePlayback(volume: 0.55, muted: false, steps: 20, control: .absolute))
        _ = try client.receive(messageId: 0x8014, body: remote.serializedBytes(), now: .zero)
        let lines = ScreenRenderer.nowPlaying(client, now: .seconds(60))
        #expect(
            lines.prefix(8) == [
                "== Now playing ==", "Track · Live at home", "Artist — Album",
                "album by Various · Jazz · disc 2 track 4 · 1959 · label: Columbia",
                "0:30 / 3:20 · paused · speed 1.5× · repeat off · shuffle off",
                "sleep timer: in 4:00", "volume: remote 55% (absolute, 20 steps)", "actions: 1 Favourite [favourite]",
            ])
        // A live item has no scrubber.
        var liveItem = item
        liveItem.isLive = true
        _ = try client.receive(messageId: 0x800D, body: DashportMedia.MediaItemState(item: liveItem).serializedBytes(), now: .zero)
        #expect(ScreenRenderer.nowPlaying(client, now: .zero)[4].hasPrefix("live · paused"))
        #expect(
            ScreenRenderer.update(.sleepTimerFired(DashportMedia.SleepTimerFired(atMs: 5))) == ["* sleep timer: fired, playback paused"])
    }

    /// Pushes printed while a screen is drawn wait for it, in order, and then follow it.
    @Test func noticesWaitForTheScreenBeingDrawn() async {
        let transcript = Transcript { _ in }
        await transcript.holdNotices()
        await transcript.printNotice(["* playback: playing"])
        await transcript.print(["== Albums ==", "page 1"])
        await transcript.printNotice(["* queue: 3 entries"])
        #expect(await transcript.lines == ["== Albums ==", "page 1"])
        await transcript.releaseNotices()
        #expect(await transcript.lines == ["== Albums ==", "page 1", "* playback: playing", "* queue: 3 entries"])
        await transcript.printNotice(["* item: X"])
        #expect(await transcript.lines.last == "* item: X")
    }

    /// The phone's bye-bye ends the interactive shell at once (an orderly end, not a failure), and
    /// the now-playing view no longer moves afterwards.
    @Test func thePhonesByeByeEndsTheShellAndStopsTheClock() async throws {
        let phone = try FakePhone()
        let (lines, shell) = try await EmulatorEndToEndTests.shell(phone: phone, options: BrowseShellOptions())
        try await shell.start()
        let (input, sink) = AsyncStream.makeStream(of: ShellInput.self)
        let run = Task { try await shell.interact(input) }
        sink.yield(.line("np"))
        sink.yield(.line("bogus"))
        try await phone.firstConnection().sayByeBye()
        #expect(await shell.session.client.closed(within: .seconds(20)) != nil)
        sink.yield(.linkClosed)
        try await run.value
        #expect(lines.all.contains("! unknown command \"bogus\"; type help"))
        let closedAt = try #require(await shell.session.closedAt)
        // `np` prints before it returns; twice, it shows the same frozen view.
        let before = lines.all.count
        _ = try await shell.execute(.nowPlaying)
        let first = Array(lines.all[before...])
        _ = try await shell.execute(.nowPlaying)
        let second = Array(lines.all[(before + first.count)...])
        #expect(first.contains("(link closed; the last state heard)"))
        #expect(second == first)
        #expect(await shell.session.closedAt == closedAt)
    }

    /// A list opened by a bare id (not on screen) is titled with the item's title from GET_ITEM;
    /// an id the server does not know is said to be unknown.
    @Test func aListOpenedByIdIsTitledWithTheItem() async throws {
        let phone = try FakePhone()
        let (lines, shell) = try await EmulatorEndToEndTests.shell(phone: phone, options: BrowseShellOptions())
        try await shell.start()
        _ = try await shell.execute(.open(.id("a2")))
        _ = try await shell.execute(.open(.id("nowhere")))
        #expect(lines.all.contains("== More =="))
        #expect(!lines.all.contains("== a2 =="))
        #expect(lines.all.contains("! no item nowhere (not on screen, and the server does not know it)"))
        await shell.session.client.close()
    }
}
