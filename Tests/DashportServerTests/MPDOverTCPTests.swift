import DashportBrowse
import DashportLog
import DashportMPD
import DashportMPDSource
import DashportMessages
import DashportServer
import DashportTestSupport
import Foundation
import Testing

/// `dashport serve --mpd`: a real mpd (MPDHarness) as the library and the player, seen by
/// in-process cars over TCP.
@Suite("MPD over TCP")
struct MPDOverTCPTests {
    static let media = MediaChannelOverTCPTests.mediaChannel
    let walker = MediaChannelOverTCPTests()

    func withServer(_ harness: MPDHarness, password: String? = nil, _ body: (TestServer, TestCar) async throws -> Void) async throws {
        try await TestServer.with(configure: { configuration in
            configuration.mpd = harness.socketPath
            configuration.mpdPassword = password ?? harness.password
        }) { server in
            let car = try await TestCar.connect(to: server.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
            try await car.waitUntil("server hello") { $0.messages(on: Self.media).contains { $0.id == 0x8001 } }
            try await body(server, car)
            await car.abort()
        }
    }

    func result(_ car: TestCar, _ requestId: UInt32) async throws -> DashportMedia.BrowseResult {
        try await car.waitUntil("answer \(requestId)") { car in
            car.messages(on: Self.media).contains {
                $0.id == 0x8006 && (try? DashportMedia.BrowseResult(serializedBytes: $0.body))?.requestId == requestId
            }
        }
        return try #require(
            await car.messages(on: Self.media).lazy.filter { $0.id == 0x8006 }
                .compactMap { try? DashportMedia.BrowseResult(serializedBytes: $0.body) }.first { $0.requestId == requestId })
    }

    func send(_ car: TestCar, _ id: UInt16, _ body: [UInt8]) async {
        await car.sendUnchecked(channel: Self.media, messageId: id, body: body)
    }

    func waitForItem(_ car: TestCar, title: String) async throws {
        try await car.waitUntil("the car's item is \(title)") { car in
            car.messages(on: Self.media).last { $0.id == 0x800D }
                .flatMap { try? DashportMedia.MediaItemState(serializedBytes: $0.body) }?.item?.title == title
        }
    }

    @Test func theTabsAndListsACarSees() async throws {
        let harness = try await MPDHarness.start()
        try await withServer(harness) { server, car in
            let tabs = try await walker.children(car, of: BrowseItem.rootId, requestId: 1)
            #expect(tabs.map(\.id) == ["tab/albums", "tab/artists", "tab/playlists", "tab/folders"])
            #expect(tabs.map(\.title) == ["Albums", "Artists", "Playlists", "Folders"])
            let albums = try await walker.children(car, of: "tab/albums", requestId: 2)
            #expect(albums.map(\.title) == ["Alpha", "Beta", "Gamma"])
            #expect(albums.map(\.subtitle) == ["Ann Artist", "Bob Band", "Various Artists"])
            // Alpha's cover.jpg and Gamma's embedded picture are served as keys; Beta's is no image.
            #expect(albums.map { $0.artworkKey != nil } == [true, false, true])
            #expect(server.log.contains(.warning, "neither JPEG nor PNG"))
            #expect(Set(albums.compactMap(\.artworkKey)).count == 2)
            let alpha = try await walker.children(car, of: albums[0].id, requestId: 3)
            #expect(alpha.map(\.title) == ["Dawn", "Noon", "Dusk"], "disc/track order, not file order")
            #expect(alpha.allSatisfy { $0.artworkKey == albums[0].artworkKey }, "an album's songs show its cover")
            // The covers come through the artwork pipeline at the size the car asks.
            for (index, key) in albums.compactMap(\.artworkKey).enumerated() {
                let id = UInt32(100 + index)
                await send(car, 0x8010, DashportMedia.GetArtwork(requestId: id, key: key, width: 128, height: 128).serializedBytes())
                try await car.waitUntil("cover \(key)") { car in
                    car.messages(on: Self.media).contains {
                        $0.id == 0x8011 && (try? DashportMedia.ArtworkResult(serializedBytes: $0.body))?.requestId == id
                    }
                }
                let answer = try #require(
                    await car.messages(on: Self.media).lazy.filter { $0.id == 0x8011 }
                        .compactMap { try? DashportMedia.ArtworkResult(serializedBytes: $0.body) }.first { $0.requestId == id })
                guard case .image(let image) = answer.outcome else {
                    Issue.record("cover \(key) not served: \(String(describing: answer.outcome))")
                    continue
                }
                #expect(image.width == 128 && image.height == 128 && image.data.starts(with: [0xFF, 0xD8]))
            }
            let artists = try await walker.children(car, of: "tab/artists", requestId: 4)
            #expect(artists.map(\.title) == ["Ann Artist", "Bob Band", "Various Artists"])
            #expect(try await walker.children(car, of: artists[0].id, requestId: 5).map(\.title) == ["Alpha"])
            let playlists = try await walker.children(car, of: "tab/playlists", requestId: 6)
            #expect(playlists.map(\.title) == [MPDLibrary.playlistName])
            #expect(try await walker.children(car, of: playlists[0].id, requestId: 7).map(\.title) == ["Fall", "Dawn"])
            let folders = try await walker.children(car, of: "tab/folders", requestId: 8)
            #expect(folders.map(\.title) == ["Ann Artist", "Bob Band", "Misc", "Various"])
            // Ids come from tags and paths: the same after a restart of everything.
            #expect(albums[0].id == "album/Ann Artist/Alpha")
            #expect(!server.log.records.contains { $0.message.contains("catalog") && $0.message.contains("demo") })
        }
    }

    @Test func searchGoesThroughMPD() async throws {
        let harness = try await MPDHarness.start()
        try await withServer(harness) { _, car in
            await send(car, 0x8005, DashportMedia.Search(requestId: 1, query: "ember", page: 0, pageSize: 20).serializedBytes())
            guard case .items(let page) = try await result(car, 1).outcome else {
                Issue.record("no items")
                return
            }
            #expect(page.items.map(\.title) == ["Ember"])
            // Playing a search result queues its album, from that song.
            let ember = try #require(page.items.first)
            await send(car, 0x8008, DashportMedia.PlayFromMediaId(requestId: 2, mediaId: ember.id).serializedBytes())
            try await waitForItem(car, title: "Ember")
            #expect(try await harness.queueTitles() == ["Spark", "Ember"])
        }
    }

    @Test func playAnAlbumThenNextFromTheCarAndFromMpc() async throws {
        let harness = try await MPDHarness.start()
        try await withServer(harness) { _, car in
            await send(car, 0x8008, DashportMedia.PlayFromMediaId(requestId: 1, mediaId: "album/Ann Artist/Alpha").serializedBytes())
            try await waitForItem(car, title: "Dawn")
            #expect(try await harness.queueTitles() == ["Dawn", "Noon", "Dusk"])
            #expect(try await harness.currentTitle() == "Dawn")
            // The car's NEXT moves MPD...
            await send(
                car, 0x800A, DashportMedia.PlaybackCommand(requestId: 2, command: .skipToNext(DashportMedia.Empty())).serializedBytes())
            try await waitForItem(car, title: "Noon")
            #expect(try await harness.currentTitle() == "Noon")
            // ... and another MPD client moves the car (what `mpc next` sends).
            try await harness.run("next")
            try await waitForItem(car, title: "Dusk")
            // The state that goes with Dusk (queue index 2) follows its metadata; counted from there.
            try await car.waitUntil("the state of Dusk") { car in
                car.messages(on: Self.media).last { $0.id == 0x800C }
                    .flatMap { try? DashportMedia.PlaybackState(serializedBytes: $0.body) }?.queueIndex == 2
            }
            // Another client's volume is the car's remote volume; the playback state (playing on,
            // MPD's elapsed a few ms off the shown anchor's projection) is not sent again.
            let states = await car.messages(on: Self.media).count { $0.id == 0x800C }
            try await harness.run("setvol", "30")
            try await car.waitUntil("remote volume 30 %") { car in
                car.messages(on: Self.media).last { $0.id == 0x8014 }
                    .flatMap { try? DashportMedia.RemotePlaybackState(serializedBytes: $0.body) }?.remote?.volume == 0.3
            }
            #expect(await car.messages(on: Self.media).count { $0.id == 0x800C } == states)
            try await harness.run("pause", "1")
            try await car.waitUntil("paused") { car in
                car.messages(on: Self.media).last { $0.id == 0x800C }
                    .flatMap { try? DashportMedia.PlaybackState(serializedBytes: $0.body) }?.status == .paused
            }
        }
    }

    func lastState(_ car: TestCar) async -> DashportMedia.PlaybackState? {
        await car.messages(on: Self.media).last { $0.id == 0x800C }.flatMap { try? DashportMedia.PlaybackState(serializedBytes: $0.body) }
    }

    /// Sends `command`, waits for its COMMAND_RESULT, then checks MPD's `status` at once: the
    /// handler answers only after MPD took the command, so no waiting for MPD is needed.
    func command(
        _ car: TestCar, _ id: UInt32, _ command: DashportMedia.PlaybackCommand.Command, mpd harness: MPDHarness,
        shows expected: [String: String], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        await send(car, 0x800A, DashportMedia.PlaybackCommand(requestId: id, command: command).serializedBytes())
        try await car.waitUntil("command \(id) answered") { car in
            car.messages(on: Self.media).contains {
                $0.id == 0x800B && (try? DashportMedia.CommandResult(serializedBytes: $0.body))?.requestId == id
            }
        }
        let status = try await harness.run("status")
        for (key, value) in expected {
            #expect(status[key] == value, "MPD's \(key) after command \(id)", sourceLocation: sourceLocation)
        }
    }

    @Test func everyCommandBothWays() async throws {
        let harness = try await MPDHarness.start()
        try await withServer(harness) { _, car in
            await send(car, 0x8008, DashportMedia.PlayFromMediaId(requestId: 1, mediaId: "album/Ann Artist/Alpha").serializedBytes())
            try await waitForItem(car, title: "Dawn")
            // Car → MPD.
            try await command(car, 2, .skipToQueueItem(2), mpd: harness, shows: ["song": "2", "playlistlength": "3"])
            try await waitForItem(car, title: "Dusk")
            try await command(car, 3, .skipToPrevious(DashportMedia.Empty()), mpd: harness, shows: ["song": "1"])
            try await command(car, 4, .seekToMs(12_000), mpd: harness, shows: [:])
            let elapsed = try #require(try await harness.run("status")["elapsed"].flatMap(Double.init))
            #expect(elapsed >= 12 && elapsed < 40, "MPD seeked to 12 s (then played on): \(elapsed)")
            try await command(car, 5, .setRepeatMode(.one), mpd: harness, shows: ["repeat": "1", "single": "1", "random": "0"])
            try await command(car, 6, .setShuffle(true), mpd: harness, shows: ["random": "1"])
            try await command(car, 7, .pause(DashportMedia.Empty()), mpd: harness, shows: ["state": "pause"])
            try await command(car, 8, .play(DashportMedia.Empty()), mpd: harness, shows: ["state": "play"])
            try await command(car, 9, .stop(DashportMedia.Empty()), mpd: harness, shows: ["state": "stop"])
            try await command(car, 10, .setDeviceVolume(0.4), mpd: harness, shows: ["volume": "40"])
            try await command(car, 11, .setDeviceMuted(true), mpd: harness, shows: ["volume": "0"])
            try await car.waitUntil("muted at 40 %") { car in
                let remote = car.messages(on: Self.media).last { $0.id == 0x8014 }
                    .flatMap { try? DashportMedia.RemotePlaybackState(serializedBytes: $0.body) }?.remote
                return remote?.muted == true && remote?.volume == 0.4
            }
            try await command(car, 12, .setDeviceMuted(false), mpd: harness, shows: ["volume": "40"])
            try await car.waitUntil("stopped, repeat one, shuffled") { car in
                let state = car.messages(on: Self.media).last { $0.id == 0x800C }
                    .flatMap { try? DashportMedia.PlaybackState(serializedBytes: $0.body) }
                return state?.status == .stopped && state?.repeatMode == .one && state?.shuffle == true
            }
            // MPD → car.
            try await harness.run("repeat", "0")
            try await harness.run("random", "0")
            try await harness.run("play", "0")
            try await car.waitUntil("playing Dawn, no repeat, in order") { car in
                let state = car.messages(on: Self.media).last { $0.id == 0x800C }
                    .flatMap { try? DashportMedia.PlaybackState(serializedBytes: $0.body) }
                return state?.status == .playing && state?.repeatMode == .off && state?.shuffle == false
            }
            try await waitForItem(car, title: "Dawn")
            try await harness.run("seekcur", "20")
            try await car.waitUntil("position 20 s") { car in
                let state = car.messages(on: Self.media).last { $0.id == 0x800C }
                    .flatMap { try? DashportMedia.PlaybackState(serializedBytes: $0.body) }
                return (state?.position?.valueMs ?? 0) >= 19_000
            }
        }
    }

    @Test func aSongMPDCannotDecodeIsAnErrorTheCarShows() async throws {
        let harness = try await MPDHarness.start()
        try await withServer(harness) { _, car in
            let broken = "dir/Misc#" + MPDLibrary.brokenFile
            await send(car, 0x8008, DashportMedia.PlayFromMediaId(requestId: 1, mediaId: broken).serializedBytes())
            try await car.waitUntil("an error state naming the decode failure") { car in
                let state = car.messages(on: Self.media).last { $0.id == 0x800C }
                    .flatMap { try? DashportMedia.PlaybackState(serializedBytes: $0.body) }
                return state?.errorMessage?.contains("decode") == true
            }
        }
    }

    @Test func aDatabaseUpdatePushesChildrenChangedForTheChangedLists() async throws {
        let harness = try await MPDHarness.start()
        try await withServer(harness) { server, car in
            #expect(try await walker.children(car, of: "tab/albums", requestId: 1).count == 3)
            #expect(try await walker.children(car, of: "artist/Ann Artist", requestId: 2).map(\.title) == ["Alpha"])
            #expect(try await walker.children(car, of: "tab/playlists", requestId: 3).count == 1)
            #expect(try await walker.children(car, of: "album/Bob Band/Beta", requestId: 4).count == 2)
            let music = harness.musicDirectory
            try FileManager.default.createDirectory(atPath: music + "/Ann Artist/Delta", withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: music + "/Ann Artist/Alpha/c-Dawn.flac", toPath: music + "/Ann Artist/Delta/01 Dawn.flac")
            let retag = Process()
            retag.executableURL = URL(fileURLWithPath: "/usr/bin/metaflac")
            retag.arguments = ["--remove-tag=ALBUM", "--set-tag=ALBUM=Delta", music + "/Ann Artist/Delta/01 Dawn.flac"]
            try retag.run()
            retag.waitUntilExit()
            try await harness.update()
            try await server.waitForLog("MPD's library changed")
            try await car.waitUntil("children-changed for Albums and Ann Artist") { car in
                let pushed = Set(
                    car.messages(on: Self.media).filter { $0.id == 0x8007 }
                        .compactMap { try? DashportMedia.ChildrenChanged(serializedBytes: $0.body).parentId })
                return pushed.isSuperset(of: ["tab/albums", "artist/Ann Artist"])
            }
            let pushed = await CatalogReloadOverTCPTests.pushes(car)
            #expect(!pushed.contains("tab/playlists") && !pushed.contains("album/Bob Band/Beta"), "\(pushed)")
            #expect(try await walker.children(car, of: "tab/albums", requestId: 5).map(\.title) == ["Alpha", "Beta", "Delta", "Gamma"])
        }
    }

    @Test func aPlaylistSavedByAnotherClientIsPushed() async throws {
        let harness = try await MPDHarness.start()
        try await withServer(harness) { _, car in
            #expect(try await walker.children(car, of: "tab/playlists", requestId: 1).map(\.title) == [MPDLibrary.playlistName])
            try await harness.run("add", "Bob Band/Beta/01 Rise.ogg")
            try await harness.run("save", "Morning")
            try await car.waitUntil("children-changed for Playlists") { car in
                car.messages(on: Self.media).contains {
                    $0.id == 0x8007 && (try? DashportMedia.ChildrenChanged(serializedBytes: $0.body))?.parentId == "tab/playlists"
                }
            }
            #expect(try await walker.children(car, of: "tab/playlists", requestId: 2).map(\.title) == ["Morning", MPDLibrary.playlistName])
            #expect(try await walker.children(car, of: "playlist/Morning", requestId: 3).map(\.title) == ["Rise"])
        }
    }

    /// Waits for events only: at load 31 the first list was asked before the server had reached
    /// MPD (an empty answer after the provider timeout, whose late push then passed for the
    /// reconnect's), so the test waits for each connection's log line before it asks.
    @Test func mpdKilledAndRestartedIsReconnectedAndCarsAreTold() async throws {
        let harness = try await MPDHarness.start()
        try await withServer(harness) { server, car in
            let connections = { server.log.records.count { $0.message.contains("connected to MPD") } }
            try await eventually("connected to MPD", timeout: .seconds(120)) { connections() >= 1 }
            #expect(try await walker.children(car, of: "tab/albums", requestId: 1).count == 3)
            harness.kill()
            try await server.waitForLog("lost MPD", timeout: .seconds(120))
            try await car.waitUntil("the car is told MPD is not answering") { car in
                car.messages(on: Self.media).contains { $0.id == 0x800F }
            }
            let pushesBefore = await car.messages(on: Self.media).count { $0.id == 0x8007 }
            try await harness.launch()
            try await eventually("connected to MPD again", timeout: .seconds(120)) { connections() >= 2 }
            try await car.waitUntil("everything invalidated once MPD is back") { car in
                car.messages(on: Self.media).count { $0.id == 0x8007 } > pushesBefore
            }
            #expect(try await walker.children(car, of: "tab/albums", requestId: 2).map(\.title) == ["Alpha", "Beta", "Gamma"])
        }
    }

    @Test func mpdNotRunningAtStartIsSaidAndTheDemoIsNeverServed() async throws {
        let directory = try TemporaryDirectory()
        try await TestServer.with(configure: { $0.mpd = directory.file("no-mpd.sock") }) { server in
            let car = try await TestCar.connect(to: server.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
            try await car.waitUntil("server hello") { $0.messages(on: Self.media).contains { $0.id == 0x8001 } }
            try await server.waitForLog("is mpd running")
            #expect(try await walker.children(car, of: BrowseItem.rootId, requestId: 1).map(\.id).allSatisfy { $0.hasPrefix("tab/") })
            await send(
                car, 0x8003, DashportMedia.GetChildren(requestId: 2, parentId: "tab/albums", page: 0, pageSize: 20).serializedBytes())
            if case .items(let page) = try await result(car, 2).outcome { #expect(page.items.isEmpty) }
            try await car.waitUntil("the car is told the library is not answering") { car in
                car.messages(on: Self.media).contains { $0.id == 0x800F }
            }
            await car.abort()
        }
    }

    @Test func aWrongPasswordIsAScreenThatSaysWhatToFix() async throws {
        let harness = try await MPDHarness.start(password: "sesame")
        try await withServer(harness, password: "open") { server, car in
            await send(
                car, 0x8003, DashportMedia.GetChildren(requestId: 1, parentId: "tab/albums", page: 0, pageSize: 20).serializedBytes())
            guard case .errorScreen(let screen) = try await result(car, 1).outcome else {
                Issue.record("not an error screen")
                return
            }
            #expect(screen.message.contains("password"))
            try await server.waitForLog("refused the password")
        }
    }

    @Test func mpdAndACatalogTogetherAreRefused() {
        var configuration = ServerConfiguration()
        configuration.mpd = "/run/mpd/socket"
        configuration.catalog = "/tmp/catalog.json"
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.catalog = nil
        configuration.mpd = "music.local:6600"
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(ServerConfiguration().mpd == nil, "nothing changes without --mpd")
        // The config file's keys are the option names; the password is best kept there.
        let parsed = try? ConfigurationParser.parse(arguments: ["--config", "/etc/dashport.conf"]) { _ in
            "mpd = /run/mpd/socket\nmpd-password = sesame\n"
        }
        #expect(parsed?.mpd == "/run/mpd/socket" && parsed?.mpdPassword == "sesame")
    }
}

extension TestCar {
    /// How many children-changed for the Albums tab this car was pushed.
    var albumPushes: Int {
        messages(on: MPDOverTCPTests.media).filter { $0.id == 0x8007 }
            .count { (try? DashportMedia.ChildrenChanged(serializedBytes: $0.body))?.parentId == "tab/albums" }
    }
}
