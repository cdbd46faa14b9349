import DashportEmulator
import DashportHeadUnit
import DashportLink
import DashportMessages
import Testing

/// The text screens: exact lines, so people and scripts can rely on them.
@Suite struct ScreenRendererTests {
    @Test func aListWithGroupsFlagsAndCompletion() {
        let page = DashportMedia.ItemPage(items: FakeMediaServer.albums, page: 0, total: 3, hasMore: false)
        #expect(
            ScreenRenderer.list(title: "Albums", page: page, childStyle: .grid) == [
                "== Albums ==",
                "style grid · page 1 · 3 of 3 items",
                "-- Jazz --",
                "  1  ▶    So What · Miles Davis  9:05  [t1]",
                "  2  ▶ E  Blue in Green  50%  [t2]",
                "-- Rock --",
                "  3  ▶›   More  [a2]",
            ])
    }

    @Test func aSecondPageWithMoreAndAnEmptyList() {
        let more = DashportMedia.ItemPage(items: [FakeMediaServer.tabs[0]], page: 1, hasMore: true)
        #expect(
            ScreenRenderer.list(title: "Tabs", page: more, childStyle: nil) == [
                "== Tabs ==",
                "page 2 · 1 item · more",
                "  1   ›   Albums  [albums]",
            ])
        #expect(
            ScreenRenderer.list(title: "Podcasts", page: DashportMedia.ItemPage(), childStyle: .list) == [
                "== Podcasts ==", "style list · page 1 · 0 items", "  (empty)",
            ])
    }

    @Test func anErrorScreenWithItsResolution() {
        let result = DashportMedia.BrowseResult(
            requestId: 4,
            outcome: .errorScreen(
                DashportMedia.BrowseErrorScreen(
                    code: .authenticationExpired, message: "Sign in to see this",
                    resolution: DashportMedia.BrowseErrorScreen.Resolution(label: "Sign in", url: "https://example.com/login"))))
        #expect(
            ScreenRenderer.browse(title: "Locked", result: result, childStyle: nil) == [
                "== Locked ==",
                "! authenticationExpired: Sign in to see this",
                "  [Sign in] https://example.com/login",
            ])
        let bare = DashportMedia.BrowseErrorScreen(code: .notAvailableInRegion, message: "Not here")
        #expect(ScreenRenderer.errorScreen(title: "X", screen: bare) == ["== X ==", "! notAvailableInRegion: Not here"])
    }

    @Test func aRejectedBrowse() {
        let result = DashportMedia.BrowseResult(
            requestId: 9, outcome: .rejected(DashportMedia.RequestRejected(reason: .busy, message: "too many requests")))
        #expect(
            ScreenRenderer.browse(title: "Albums", result: result, childStyle: nil) == [
                "== Albums ==", "! rejected: busy — too many requests",
            ])
    }

    @Test func nowPlayingMovesWithTheInjectedClock() throws {
        var client = MediaChannelClient()
        let state = DashportMedia.PlaybackState(
            status: .playing, position: DashportMedia.PositionAnchor(valueMs: 60_000, atMs: 1_000, rate: 1), sentAtMs: 1_000,
            queueIndex: 1, repeatMode: .all, shuffle: true)
        _ = try client.receive(messageId: 0x800C, body: state.serializedBytes(), now: .seconds(100))
        let item = DashportMedia.MediaItem(
            id: "t2", title: "Freddie Freeloader", artist: "Miles Davis", album: "Kind of Blue", durationMs: 589_000)
        _ = try client.receive(messageId: 0x800D, body: DashportMedia.MediaItemState(item: item).serializedBytes(), now: .seconds(100))
        let queue = DashportMedia.QueueState(items: [FakeMediaServer.t1, item, DashportMedia.MediaItem(id: "t3", title: "Blue in Green")])
        _ = try client.receive(messageId: 0x800E, body: queue.serializedBytes(), now: .seconds(100))

        let expected = [
            "== Now playing ==",
            "Freddie Freeloader",
            "Miles Davis — Kind of Blue",
            "1:00 / 9:49 · playing · speed 1× · repeat all · shuffle on",
            "queue:",
            "     1  So What · Miles Davis",
            "  >  2  Freddie Freeloader · Miles Davis",
            "     3  Blue in Green",
        ]
        #expect(ScreenRenderer.nowPlaying(client, now: .seconds(100)) == expected)
        let later = ScreenRenderer.nowPlaying(client, now: .seconds(175))
        #expect(later[3] == "2:15 / 9:49 · playing · speed 1× · repeat all · shuffle on")
    }

    @Test func nowPlayingBeforeAnyState() {
        #expect(
            ScreenRenderer.nowPlaying(MediaChannelClient(), now: .zero) == [
                "== Now playing ==", "(nothing loaded)", "-:-- · no state yet · speed 1× · repeat off · shuffle off", "queue: empty",
            ])
    }

    @Test func commandResultsAndArtwork() {
        #expect(ScreenRenderer.commandResult("play", DashportMedia.CommandResult(requestId: 1, accepted: true)) == "play: accepted")
        let rejected = DashportMedia.CommandResult(
            requestId: 2, accepted: false, reason: .notInCapabilities, message: "seeking is not declared")
        #expect(
            ScreenRenderer.commandResult(ScreenRenderer.describe(.seekToMs(30_000)), rejected)
                == "seek to 0:30: rejected (notInCapabilities): seeking is not declared")
        let image = DashportMedia.ArtworkResult(
            requestId: 3,
            outcome: .image(
                DashportMedia.ArtworkImage(
                    data: FakeMediaServer.png, mimeType: "image/png", width: 64, height: 64)))
        #expect(
            ScreenRenderer.artwork(key: "cover-1", result: image, savedAs: "art/cover-1.png")
                == "art cover-1: image/png 64×64, 8 bytes → art/cover-1.png")
        let missing = DashportMedia.ArtworkResult(
            requestId: 4, outcome: .error(DashportMedia.ArtworkError(code: .notFound, message: "never handed out")))
        #expect(ScreenRenderer.artwork(key: "k", result: missing, savedAs: nil) == "art k: error notFound — never handed out")
    }

    @Test(arguments: [(Int64(0), "0:00"), (59_999, "0:59"), (61_000, "1:01"), (3_600_000, "1:00:00"), (3_725_000, "1:02:05"), (-5, "0:00")])
    func clockText(milliseconds: Int64, text: String) {
        #expect(ScreenRenderer.clock(milliseconds) == text)
    }

    @Test func linkEventsForConnectLeaveOutTimings() {
        let tls = TLSSummary(version: "TLSv1.2", cipher: "ECDHE-RSA-AES128-GCM-SHA256", peerFingerprint: "ab12")
        #expect(
            ScreenRenderer.linkEvent(.tlsEstablished(tls)) == "tls: TLSv1.2 ECDHE-RSA-AES128-GCM-SHA256\nserver certificate sha256: ab12")
        #expect(
            ScreenRenderer.linkEvent(.channelOpened(CarService(channel: 8, kind: .input(keycodes: [85, 87]))))
                == "channel 8 opened: input (2 keys)")
        #expect(ScreenRenderer.linkEvent(.pingReceived(timestamp: 123_456, encrypted: false)) == "ping from the phone (plain)")
        #expect(
            ScreenRenderer.linkEvent(.pingAnswered(rtt: .milliseconds(3), encrypted: true)) == "the phone answered our ping (encrypted)")
    }
}

/// The rough edges of issue 21 a person met on the screens: durations, the marks, the deliberate drops.
@Suite struct ScreenRendererRoughEdgeTests {
    @Test func aRowShowsItsDuration() {
        var item = DashportMedia.BrowseItem(id: "t1", title: "So What", subtitle: "Miles Davis", playable: true)
        item.durationMs = 562_000
        #expect(ScreenRenderer.row(1, item) == "  1  ▶    So What · Miles Davis  9:22  [t1]")
        item.durationMs = 3_725_000
        #expect(ScreenRenderer.row(2, item) == "  2  ▶    So What · Miles Davis  1:02:05  [t1]")
        item.durationMs = 0  // unknown: nothing shown
        #expect(ScreenRenderer.row(3, item) == "  3  ▶    So What · Miles Davis  [t1]")
    }

    @Test func helpExplainsTheMarks() {
        let help = EmulatorCommand.helpText.joined(separator: "\n")
        #expect(help.contains("▶  playable") && help.contains("›  browsable") && help.contains("E  explicit"))
        #expect(help.contains("Up/Down walk the history"))
    }

    @Test func aTabDroppedForTheCarReadsAsACarRuleNotAFault() throws {
        let error = DashportMedia.SessionError(
            code: .browseRootRejected, severity: .degraded,
            message: "root entry 'Radio' (tab-radio) dropped: over the cap of 4 tabs", subject: "tab-radio")
        let lines = try #require(ScreenRenderer.notice(.update(.sessionError(error)), stock: false))
        #expect(!lines.joined().contains("session error"))
        #expect(!lines.joined().contains("degraded"))
        #expect(
            lines.first
                == "* the server dropped an entry for this car's screen: root entry 'Radio' (tab-radio) dropped: over the cap of 4 tabs [tab-radio]"
        )
        #expect(lines.last?.contains("the demo library has a fifth tab and a playable root entry on purpose") == true)
        // Any other session error still reads as one.
        let other = DashportMedia.SessionError(code: .artworkFailed, severity: .degraded, message: "a cover could not be loaded")
        #expect(ScreenRenderer.notice(.update(.sessionError(other)), stock: false)?.first?.hasPrefix("* session error: ") == true)
    }
}
