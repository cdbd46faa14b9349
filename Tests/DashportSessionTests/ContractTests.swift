import Foundation
import DashportTestSupport
import DashportClock
import DashportBrowse
import Testing
@testable import DashportSession

/// The rest of the session contract: remote playback and its volume commands, the sleep timer's
/// state as updates, full metadata (persisted, old files still restore), queues of tracks only.
@Suite struct ContractTests {
    static func remoteCore(_ control: RemotePlayback.Control?, clock: ManualClock = ManualClock()) -> SessionCore {
        SessionCore(
            handler: DemoPlaybackHandler(library: TestLibrary.standard, clock: clock, shuffleSeed: 1, remoteVolume: control),
            clock: clock, configuration: testConfiguration)
    }

    @Test func anAbsoluteRemoteVolumeStepsFromTheLastPublishedLevel() async {
        let core = Self.remoteCore(.absolute)
        let updates = await core.subscribe()
        #expect(await core.remotePlayback?.volume == 0.5)
        #expect(await core.perform(.adjustDeviceVolume(steps: 1), from: .aapKey(car: "c")) == .accepted)
        #expect(await core.remotePlayback?.volume == 0.55)
        #expect(await core.perform(.adjustDeviceVolume(steps: -3), from: .aapKey(car: "c")) == .accepted)
        #expect(await core.remotePlayback?.volume == 0.4)
        #expect(await core.perform(.setDeviceVolume(7), from: .local) == .accepted)  // clamped
        #expect(await core.remotePlayback?.volume == 1)
        #expect(await core.perform(.toggleDeviceMute, from: .local) == .accepted)
        #expect(await core.remotePlayback?.muted == true)
        #expect(await core.perform(.setDeviceVolume(.nan), from: .local).reason?.hasPrefix("volume ") == true)
        #expect(await core.perform(.adjustDeviceVolume(steps: 0), from: .local).reason?.hasPrefix("volume steps of 0") == true)
        await core.close()
        let remotes = await drain(updates).compactMap { if case .remotePlayback(let r) = $0 { r } else { nil } }
        // The subscription starts with the declaration, then one update per change.
        #expect(remotes.map(\.volume) == [0.5, 0.55, 0.4, 1, 1])
        #expect(remotes.last?.muted == true)
    }

    @Test func relativeAndFixedControlsRefuseWhatTheyCannotDo() async {
        let relative = Self.remoteCore(.relative)
        #expect(await relative.perform(.setDeviceVolume(0.2), from: .local).reason?.hasPrefix(SessionCore.remoteVolumeNotWritable) == true)
        #expect(await relative.perform(.adjustDeviceVolume(steps: -2), from: .local) == .accepted)
        #expect(await relative.remotePlayback?.volume == 0.4)
        let fixed = Self.remoteCore(.fixed)
        for command in [SessionCommand.setDeviceVolume(0.2), .adjustDeviceVolume(steps: 1), .setDeviceMuted(true), .toggleDeviceMute] {
            #expect(await fixed.perform(command, from: .local).reason?.hasPrefix(SessionCore.remoteVolumeNotWritable) == true)
        }
        #expect(await fixed.remotePlayback?.volume == 0.5)
        let local = Self.remoteCore(nil)
        #expect(
            await local.perform(.adjustDeviceVolume(steps: 1), from: .local) == .rejected(reason: SessionCore.remotePlaybackNotDeclared))
        for core in [relative, fixed, local] { await core.close() }
    }

    @Test func aRemoteDeclarationIsValidatedAndNeverPersisted() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        let clock = ManualClock()
        let core = SessionCore(
            handler: DemoPlaybackHandler(library: TestLibrary.standard, clock: clock, remoteVolume: .absolute),
            clock: clock, persistence: SessionStore(directory: directory), configuration: testConfiguration)
        await #expect(throws: SessionStateError.self) {
            try await core.broadcaster.setRemotePlayback(RemotePlayback(volume: 1.5, control: .absolute))
        }
        await #expect(throws: SessionStateError.self) {
            try await core.broadcaster.setRemotePlayback(RemotePlayback(volume: 0.5, steps: 0, control: .absolute))
        }
        _ = await core.perform(.playFromMediaId("a1"), from: .local)
        _ = await core.perform(.setDeviceVolume(0.9), from: .local)
        await core.close()
        let written = try String(contentsOf: SessionStore(directory: directory).fileURL, encoding: .utf8)
        #expect(written.contains("\"a1\""))
        #expect(!written.contains("volume") && !written.contains("remote"))
    }

    @Test func theVolumeKeysMapToVolumeCommands() {
        #expect(SessionCommand.fromAAPKeyCode(24) == .adjustDeviceVolume(steps: 1))
        #expect(SessionCommand.fromAAPKeyCode(25) == .adjustDeviceVolume(steps: -1))
        #expect(SessionCommand.fromAAPKeyCode(164) == .toggleDeviceMute)
        #expect(SessionCommand.aapVolumeKeyCodes == [24, 25, 164])
    }

    @Test func theSleepTimerTellsSubscribersWhenItIsArmedCancelledAndFired() async {
        let clock = ManualClock()
        let core = makeDemoCore(clock: clock)
        _ = await core.perform(.playFromMediaId("a1"), from: .local)
        let updates = await core.subscribe()
        #expect(await core.perform(.setSleepTimer(.duration(ms: 5000)), from: .local) == .accepted)
        #expect(await core.perform(.cancelSleepTimer, from: .local) == .accepted)
        #expect(await core.perform(.setSleepTimer(.endOfTrack), from: .local) == .accepted)
        _ = await core.perform(.pause, from: .local)  // an end-of-track timer waits while paused
        _ = await core.perform(.play, from: .local)
        #expect(await core.perform(.setSleepTimer(.duration(ms: 1000)), from: .local) == .accepted)
        await clock.advance(by: .seconds(1))
        #expect(await core.playbackState.status == .paused)
        await core.close()
        let sleep = await drain(updates).compactMap { update -> String? in
            switch update {
            case .sleepTimer(let status?):
                "\(status.timer == .endOfTrack ? "eot" : "duration") \(status.deadline?.milliseconds.description ?? "waits")"
            case .sleepTimer(nil): "off"
            case .sleepTimerFired: "fired"
            default: nil
            }
        }
        #expect(sleep == ["duration 5000", "off", "eot 100000", "eot waits", "eot 100000", "duration 1000", "fired", "off"])
    }

    @Test func fullMetadataMergesAndSurvivesARestartAndOldFilesStillRestore() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        let clock = ManualClock()
        let store = SessionStore(directory: directory)
        let core = makeDemoCore(clock: clock, store: store)
        let rich = MediaItem(
            id: "live-1", title: "Morning show", subtitle: "Radio One", albumArtist: "Various", genre: "Talk",
            trackNumber: 3, discNumber: 2, year: 1977, isLive: true, extras: ["station": "R1", "lang": "en"])
        try await core.broadcaster.update(
            queue: QueueState(items: [rich]),
            playbackState: PlaybackState(status: .paused, capabilities: [.play], queueIndex: 0))
        #expect(await core.mediaItem.item == rich)
        // A handler's item with the same id fills in only what it sets.
        try await core.broadcaster.setMediaItem(MediaItemState(item: MediaItem(id: "live-1", genre: "News")))
        #expect(await core.mediaItem.item?.genre == "News")
        #expect(await core.mediaItem.item?.albumArtist == "Various")
        await core.close()

        let restored = makeDemoCore(clock: clock, store: store)
        #expect(await restored.restore() == .restored)
        #expect(await restored.queue.items.first == rich)
        #expect(await restored.mediaItem.item?.extras == ["station": "R1", "lang": "en"])
        await restored.close()

        // A file written before these fields existed (the same version, without their keys).
        let url = store.fileURL
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let newKeys = ["albumArtist", "genre", "trackNumber", "discNumber", "year", "isLive", "extras"]
        func strip(_ item: Any?) -> Any? {
            guard var item = item as? [String: Any] else { return item }
            for key in newKeys { item[key] = nil }
            return item
        }
        var snapshot = try #require(json["snapshot"] as? [String: Any])
        var queue = try #require(snapshot["queue"] as? [String: Any])
        queue["items"] = (queue["items"] as? [Any])?.map { strip($0) as Any }
        snapshot["queue"] = queue
        var mediaItem = try #require(snapshot["mediaItem"] as? [String: Any])
        mediaItem["item"] = strip(mediaItem["item"])
        snapshot["mediaItem"] = mediaItem
        json["snapshot"] = snapshot
        try JSONSerialization.data(withJSONObject: json).write(to: url)
        #expect(!(try String(contentsOf: url, encoding: .utf8)).contains("albumArtist"))
        let old = makeDemoCore(clock: clock, store: store)
        #expect(await old.restore() == .restored)
        #expect(await old.queue.items.first?.title == "Morning show")
        #expect(await old.queue.items.first?.genre == nil)
        await old.close()
    }

    @Test func aLiveItemHasNoScrubberEvenWithADuration() {
        #expect(!MediaItem(id: "x", durationMs: 60_000, isLive: true).hasScrubber)
        #expect(!MediaItem(id: "x").hasScrubber)
        #expect(MediaItem(id: "x", durationMs: 60_000).hasScrubber)
        #expect(MediaItem(BrowseItem(id: "r", title: "R", playable: true, mediaType: .radio)).isLive == true)
    }

    /// A queue holds tracks: containers among siblings are skipped, a playable container plays its
    /// tracks, and one without tracks is refused rather than queued as a track of no length.
    @Test func aQueueHoldsTracksNotAlbums() async {
        let library = TestLibrary(tree: [
            BrowseItem.rootId: [BrowseItem(id: "recent", title: "Recent", browsable: true)],
            "recent": [
                TestLibrary.track("t1", seconds: 10),
                BrowseItem(id: "album-x", title: "Album X", browsable: true, playable: true, mediaType: .album),
                TestLibrary.track("t2", seconds: 20),
                BrowseItem(id: "empty-album", title: "Empty", browsable: true, playable: true, mediaType: .album),
            ],
            "album-x": [
                TestLibrary.track("x1", seconds: 30),
                BrowseItem(id: "x-disc2", title: "Disc 2", browsable: true, playable: true),
                TestLibrary.track("x2", seconds: 40),
            ],
            "empty-album": [BrowseItem(id: "sub", title: "Sub", browsable: true, playable: true)],
        ])
        let clock = ManualClock()
        let core = makeDemoCore(clock: clock, library: library)
        #expect(await core.perform(.playFromMediaId("t2"), from: .local) == .accepted)
        #expect(await core.queue.items.map(\.id) == ["t1", "t2"])
        #expect(await core.playbackState.queueIndex == 1)
        #expect(await core.perform(.playFromMediaId("album-x"), from: .local) == .accepted)
        #expect(await core.queue.items.map(\.id) == ["x1", "x2"])
        #expect(await core.queue.items.allSatisfy { $0.durationMs != nil })
        #expect(await core.perform(.playFromMediaId("empty-album"), from: .local) == .rejected(reason: "'Empty' has no tracks to play"))
        #expect(await core.perform(.skipToQueueItem(5), from: .local) == .rejected(reason: "queue position 6 is outside a queue of 2"))
        await core.close()
    }
}
