import DashportMessages
import Testing

/// The Dashport media channel schema (Protocols/dashport_media.proto): hand-derived bytes, oneofs,
/// defaults and round trips of the messages as the services will use them.
@Suite struct MediaChannelTests {
    @Test func carProfileDefaultsWhenTheCarSendsNothing() throws {
        let profile = try DashportMedia.CarProfile(serializedBytes: [])
        #expect(profile.maxRootTabsOrDefault == 4)
        #expect(profile.protocolVersionOrDefault == 1)
        #expect(profile.errorScreenSupportOrDefault == .legacy)
        #expect(profile.maxDepth == nil)
        #expect(profile.supportsSearch == nil)
    }

    @Test func carProfileTravelsInTheVendorExtensionData() throws {
        let profile = DashportMedia.CarProfile(
            maxRootTabs: 3, maxDepth: 5, maxItemsPerList: 100,
            artworkSizes: [.init(width: 256, height: 256), .init(width: 96, height: 96)],
            errorScreenSupport: .listed, drawableErrorScreens: [.authenticationExpired, .notSupported],
            supportsSearch: true, locale: "de-DE", capabilities: [.grid, .queue]
        )
        let service = AAP.Service(id: 16, vendorExtensionService: .init(name: "dashport.media", data: profile.serializedBytes()))
        let decoded = try AAP.Service(serializedBytes: service.serializedBytes())
        let data = try #require(decoded.vendorExtensionService?.data)
        #expect(try DashportMedia.CarProfile(serializedBytes: data) == profile)
    }

    @Test func browseResultRejectedBytes() throws {
        // 1: request_id 7 → 08 07; 4: RequestRejected{1: reason BUSY} → 22 02 08 01.
        let result = DashportMedia.BrowseResult(requestId: 7, outcome: .rejected(.init(reason: .busy)))
        #expect(result.serializedBytes() == [0x08, 0x07, 0x22, 0x02, 0x08, 0x01])
        #expect(try DashportMedia.BrowseResult(serializedBytes: [0x08, 0x07, 0x22, 0x02, 0x08, 0x01]) == result)
    }

    @Test(arguments: [
        DashportMedia.BrowseResult.Outcome.items(
            .init(
                items: [
                    .init(id: "album:1", title: "Blue", artworkKey: "k1", browsable: true, playable: true, childStyle: .grid),
                    .init(
                        id: "track:1", title: "Ünïcode", playable: true, explicit: true, completion: 0.5, mediaType: .music,
                        durationMs: 215_000),
                ], page: 0, total: 2, hasMore: false)),
        .items(.init()),
        .errorScreen(
            .init(
                code: .authenticationExpired, message: "Sign in again",
                resolution: .init(label: "Sign in", url: "https://example.org/login"))),
        .rejected(.init(reason: .unavailable, message: "provider down")),
    ])
    func browseResultOutcomesRoundTrip(outcome: DashportMedia.BrowseResult.Outcome) throws {
        let result = DashportMedia.BrowseResult(requestId: 42, outcome: outcome)
        #expect(try DashportMedia.BrowseResult(serializedBytes: result.serializedBytes()) == result)
    }

    @Test func playbackCommandBytes() {
        // 2: play = Empty → 12 00.
        #expect(DashportMedia.PlaybackCommand(requestId: 1, command: .play(.init())).serializedBytes() == [0x08, 0x01, 0x12, 0x00])
        // 5: seek_to_ms 90000 = 0x15f90 → 28 90 bf 05.
        #expect(
            DashportMedia.PlaybackCommand(requestId: 1, command: .seekToMs(90_000)).serializedBytes()
                == [0x08, 0x01, 0x28, 0x90, 0xBF, 0x05])
        // 9: set_rate 1.5 as a little-endian double → 49 00 00 00 00 00 00 f8 3f.
        #expect(
            DashportMedia.PlaybackCommand(requestId: 1, command: .setRate(1.5)).serializedBytes()
                == [0x08, 0x01, 0x49, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF8, 0x3F])
    }

    @Test(arguments: [
        DashportMedia.PlaybackCommand.Command.play(.init()), .pause(.init()), .stop(.init()), .seekToMs(0), .seekToMs(3_600_000),
        .skipToNext(.init()), .skipToPrevious(.init()), .skipToQueueItem(0), .skipToQueueItem(12), .setRate(0.75),
        .setRepeatMode(.off), .setRepeatMode(.all), .setShuffle(false), .setShuffle(true),
        .jumpForward(.init()), .jumpBack(.init(ms: 30_000)),
        .customAction(
            .init(
                name: "like",
                extras: [
                    .init(key: "s", value: .stringValue("x")), .init(key: "i", value: .intValue(-3)),
                    .init(key: "d", value: .doubleValue(2.5)), .init(key: "b", value: .boolValue(true)), .init(key: "none"),
                ])),
        .setSleepTimer(.init(until: .durationMs(900_000))), .setSleepTimer(.init(until: .endOfTrack(.init()))),
        .setSleepTimer(.init()), .cancelSleepTimer(.init()),
    ])
    func everyPlaybackCommandRoundTrips(command: DashportMedia.PlaybackCommand.Command) throws {
        let message = DashportMedia.PlaybackCommand(requestId: 9, command: command)
        let decoded = try DashportMedia.PlaybackCommand(serializedBytes: message.serializedBytes())
        #expect(decoded == message)
    }

    @Test func lastOneofMemberOnTheWireWins() throws {
        let bytes: [UInt8] = [0x08, 0x01, 0x12, 0x00, 0x28, 0x05]
        #expect(try DashportMedia.PlaybackCommand(serializedBytes: bytes).command == .seekToMs(5))
    }

    @Test func unknownCommandIsNoCommand() throws {
        // A newer car's command (field 40) decodes with no command, for the service to reject.
        let bytes: [UInt8] = [0x08, 0x03] + Proto.field(40, bytes: [])
        let command = try DashportMedia.PlaybackCommand(serializedBytes: bytes)
        #expect(command.requestId == 3)
        #expect(command.command == nil)
    }

    @Test func playbackStateRoundTripsWithItsAnchor() throws {
        let state = DashportMedia.PlaybackState(
            status: .playing,
            position: .init(valueMs: 61_000, atMs: 1_234_567, rate: 1),
            sentAtMs: 1_234_600, bufferedPositionMs: 90_000,
            controls: [.pause, .skipToNext, .skipToPrevious],
            capabilities: DashportMedia.PlaybackAction.knownValues,
            customActions: [.init(name: "like", label: "Like", iconArtworkKey: "icon:like")],
            queueIndex: 2, repeatMode: .one, shuffle: false
        )
        #expect(try DashportMedia.PlaybackState(serializedBytes: state.serializedBytes()) == state)
        // Nothing set but the required status: stopped is written as 08 00.
        #expect(DashportMedia.PlaybackState().serializedBytes() == [0x08, 0x00])
    }

    @Test func itemAndQueuePushes() throws {
        let item = DashportMedia.MediaItem(id: "t1", title: "One", artist: "A", album: "B", artworkKey: "k", durationMs: 1000)
        let state = DashportMedia.MediaItemState(item: item)
        #expect(try DashportMedia.MediaItemState(serializedBytes: state.serializedBytes()) == state)
        #expect(DashportMedia.MediaItemState().serializedBytes() == [])
        let queue = DashportMedia.QueueState(items: [item, .init(id: "t2")])
        #expect(try DashportMedia.QueueState(serializedBytes: queue.serializedBytes()) == queue)
    }

    @Test func sessionErrorDefaultsToDegraded() throws {
        let error = try DashportMedia.SessionError(serializedBytes: [0x08, 0x03])
        #expect(error.code == .artworkFailed)
        #expect(error.severity == .degraded)
    }

    @Test func artworkResultCarriesTheImageOrAnError() throws {
        let image = DashportMedia.ArtworkResult(
            requestId: 5, outcome: .image(.init(data: [0xFF, 0xD8, 0xFF, 0xD9], mimeType: "image/jpeg", width: 256, height: 170)))
        #expect(try DashportMedia.ArtworkResult(serializedBytes: image.serializedBytes()) == image)
        let failure = DashportMedia.ArtworkResult(requestId: 6, outcome: .error(.init(code: .notFound)))
        #expect(try DashportMedia.ArtworkResult(serializedBytes: failure.serializedBytes()) == failure)
        let request = DashportMedia.GetArtwork(requestId: 5, key: "k1", width: 256, height: 256)
        #expect(try DashportMedia.GetArtwork(serializedBytes: request.serializedBytes()) == request)
    }

    @Test func enumNamesMatchTheBrowseTypes() {
        // The names of BrowseItem.ChildStyle, BrowseItem.MediaType and BrowseError.Code (DashportBrowse).
        #expect(DashportMedia.ChildStyle.knownValues.map(\.description) == ["list", "grid", "categoryList", "categoryGrid"])
        #expect(
            DashportMedia.MediaType.knownValues.map(\.description) == [
                "folder", "music", "album", "artist", "playlist", "podcast", "podcastEpisode", "audiobook", "radio", "genre", "other",
            ])
        #expect(
            DashportMedia.BrowseErrorCode.knownValues.dropFirst().map(\.description) == [
                "authenticationExpired", "premiumAccountRequired", "notAvailableInRegion", "parentalControlRestricted", "notSupported",
            ])
    }

    @Test func messageIdsAreInTheServiceRange() {
        let ids = DashportMedia.MessageId.knownValues.map(\.rawValue)
        #expect(ids.first == 0x8001)
        #expect(ids == Array(0x8001...0x8014))
    }
}
