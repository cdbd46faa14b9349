import DashportDigest
import DashportEmulator
import DashportHeadUnit
import DashportLink
import DashportMessages
import Testing

/// The sans-IO car side of the Dashport media channel: requests byte for byte, answers matched by
/// request id, pushes kept, position from the anchor on an injected clock.
@Suite struct MediaChannelClientTests {
    @Test func requestsCarryIncreasingIdsAndExactBodies() throws {
        var client = MediaChannelClient()
        let children = try client.getChildren(parentId: "ab", page: 2, pageSize: 10)
        #expect(children.requestId == 1)
        #expect(children.messageId == 0x8003)
        #expect(Hex.string(children.body, separator: " ") == "08 01 12 02 61 62 18 02 20 0a")

        let play = try client.playbackCommand(.play(DashportMedia.Empty()))
        #expect(play.requestId == 2)
        #expect(play.messageId == 0x800A)
        #expect(Hex.string(play.body, separator: " ") == "08 02 12 00")

        let seek = try client.playbackCommand(.seekToMs(30_000))
        #expect(Hex.string(seek.body, separator: " ") == "08 03 28 b0 ea 01")

        let item = try client.getItem(id: "t1")
        #expect(item.messageId == 0x8004)
        #expect(item.body == DashportMedia.GetItem(requestId: 4, id: "t1").serializedBytes())
        let search = try client.search(query: "miles", page: 0, pageSize: 5)
        #expect(search.messageId == 0x8005)
        #expect(search.body == DashportMedia.Search(requestId: 5, query: "miles", page: 0, pageSize: 5).serializedBytes())
        let byId = try client.playFromMediaId("t1")
        #expect(byId.messageId == 0x8008)
        #expect(byId.body == DashportMedia.PlayFromMediaId(requestId: 6, mediaId: "t1").serializedBytes())
        let voice = try client.playFromSearch(query: "jazz", focus: .genre)
        #expect(voice.messageId == 0x8009)
        #expect(voice.body == DashportMedia.PlayFromSearch(requestId: 7, query: "jazz", focus: .genre).serializedBytes())
        let art = try client.getArtwork(key: "cover-1", width: 128, height: 96)
        #expect(art.messageId == 0x8010)
        #expect(art.body == DashportMedia.GetArtwork(requestId: 8, key: "cover-1", width: 128, height: 96).serializedBytes())

        #expect(Set(client.inFlight.keys) == Set(1...8))
        #expect(client.nextRequestId == 9)
        #expect(try client.makeRequest(.getItem(id: "x")).body == DashportMedia.GetItem(requestId: 9, id: "x").serializedBytes())
    }

    @Test func answersAreMatchedByRequestIdInAnyOrder() throws {
        var client = MediaChannelClient()
        let first = try client.getChildren(parentId: "root")
        let second = try client.playFromMediaId("t1")
        let third = try client.getArtwork(key: "k")

        let commandAnswer = DashportMedia.CommandResult(requestId: second.requestId, accepted: true)
        let update = try client.receive(messageId: 0x800B, body: commandAnswer.serializedBytes(), now: .zero)
        #expect(update == .answer(second, .command(commandAnswer)))

        let page = DashportMedia.BrowseResult(requestId: first.requestId, outcome: .items(DashportMedia.ItemPage(items: [], page: 0)))
        #expect(try client.receive(messageId: 0x8006, body: page.serializedBytes(), now: .zero) == .answer(first, .browse(page)))
        #expect(Array(client.inFlight.keys) == [third.requestId])

        // The same answer again: that request is no longer in flight.
        #expect(throws: MediaChannelClientError.unknownRequestId(messageId: 0x8006, requestId: first.requestId)) {
            try client.receive(messageId: 0x8006, body: page.serializedBytes(), now: .zero)
        }
    }

    @Test func anAnswerOfTheWrongKindLeavesTheRequestInFlight() throws {
        var client = MediaChannelClient()
        let request = try client.getChildren(parentId: "root")
        let wrong = DashportMedia.CommandResult(requestId: request.requestId, accepted: true).serializedBytes()
        #expect(throws: MediaChannelClientError.mismatchedAnswer(requestId: 1, expected: 0x8006, got: 0x800B)) {
            try client.receive(messageId: 0x800B, body: wrong, now: .zero)
        }
        #expect(client.inFlight[1] == request)
    }

    @Test func badMessagesAreTypedErrors() throws {
        var client = MediaChannelClient()
        #expect(throws: MediaChannelClientError.unexpectedMessage(messageId: 0x8003)) {
            try client.receive(messageId: 0x8003, body: [], now: .zero)  // GET_CHILDREN is ours to send
        }
        #expect {
            try client.receive(messageId: 0x800C, body: [0x0A, 0x05, 0x01], now: .zero)  // truncated
        } throws: { error in
            if case .undecodable(0x800C, _) = error as? MediaChannelClientError { true } else { false }
        }
        #expect(client.playback == nil)
    }

    @Test func pushesKeepTheLatestOfEachKind() throws {
        var client = MediaChannelClient()
        let hello = DashportMedia.ServerHello(serverName: "Dashport", supportsSearch: true, rootId: "__root__")
        #expect(try client.receive(messageId: 0x8001, body: hello.serializedBytes(), now: .zero) == .serverHello(hello))
        #expect(client.serverHello?.rootId == "__root__")

        let paused = DashportMedia.PlaybackState(status: .paused)
        let playing = DashportMedia.PlaybackState(status: .playing, queueIndex: 1)
        _ = try client.receive(messageId: 0x800C, body: paused.serializedBytes(), now: .seconds(1))
        _ = try client.receive(messageId: 0x800C, body: playing.serializedBytes(), now: .seconds(2))
        #expect(client.playback == PlaybackSnapshot(state: playing, receivedAt: .seconds(2)))

        let item = DashportMedia.MediaItemState(item: DashportMedia.MediaItem(id: "t1", title: "So What"))
        let queue = DashportMedia.QueueState(items: [DashportMedia.MediaItem(id: "t1")])
        let error = DashportMedia.SessionError(code: .artworkFailed, severity: .degraded, subject: "k")
        let changed = DashportMedia.ChildrenChanged(parentId: "albums")
        #expect(try client.receive(messageId: 0x800D, body: item.serializedBytes(), now: .zero) == .mediaItem(item))
        #expect(try client.receive(messageId: 0x800E, body: queue.serializedBytes(), now: .zero) == .queue(queue))
        #expect(try client.receive(messageId: 0x800F, body: error.serializedBytes(), now: .zero) == .sessionError(error))
        #expect(try client.receive(messageId: 0x8007, body: changed.serializedBytes(), now: .zero) == .childrenChanged(changed))
        #expect(client.mediaItem == item)
        #expect(client.queue == queue)
        #expect(client.lastSessionError == error)
        #expect(client.lastChildrenChanged == changed)
    }

    @Test func positionAdvancesFromTheAnchorOnTheCarsClock() throws {
        var client = MediaChannelClient()
        // Built 500 ms after the anchor; received at car time 10 s.
        let state = DashportMedia.PlaybackState(
            status: .playing, position: DashportMedia.PositionAnchor(valueMs: 60_000, atMs: 5_000, rate: 1), sentAtMs: 5_500)
        _ = try client.receive(messageId: 0x800C, body: state.serializedBytes(), now: .seconds(10))
        #expect(client.positionMs(at: .seconds(10)) == 60_500)
        #expect(client.positionMs(at: .seconds(13)) == 63_500)

        let item = DashportMedia.MediaItemState(item: DashportMedia.MediaItem(id: "t1", durationMs: 62_000))
        _ = try client.receive(messageId: 0x800D, body: item.serializedBytes(), now: .seconds(10))
        #expect(client.positionMs(at: .seconds(13)) == 62_000, "capped at the item's duration")

        let double = PlaybackSnapshot(
            state: DashportMedia.PlaybackState(status: .playing, position: DashportMedia.PositionAnchor(valueMs: 0, atMs: 0, rate: 2)),
            receivedAt: .seconds(1))
        #expect(double.positionMs(at: .seconds(4)) == 6_000)
        #expect(
            PlaybackSnapshot(state: DashportMedia.PlaybackState(status: .stopped), receivedAt: .zero).positionMs(at: .seconds(1)) == nil)
    }

    @Test func inFlightIsCappedAndCancelFreesASlot() throws {
        var client = MediaChannelClient(maxInFlight: 2)
        let first = try client.getItem(id: "a")
        _ = try client.getItem(id: "b")
        #expect(throws: MediaChannelClientError.tooManyInFlight(limit: 2)) { try client.getItem(id: "c") }
        #expect(client.cancel(requestId: first.requestId) == first)
        #expect(try client.getItem(id: "c").requestId == 3)
        let late = DashportMedia.BrowseResult(requestId: first.requestId).serializedBytes()
        #expect(throws: MediaChannelClientError.unknownRequestId(messageId: 0x8006, requestId: 1)) {
            try client.receive(messageId: 0x8006, body: late, now: .zero)
        }
    }

    @Test func requestIdsWrapAroundSkippingZeroAndIdsInFlight() throws {
        var client = MediaChannelClient(firstRequestId: UInt32.max)
        #expect(try client.getItem(id: "a").requestId == UInt32.max)
        #expect(try client.getItem(id: "b").requestId == 1)
        var wrapped = MediaChannelClient(firstRequestId: 0)
        #expect(try wrapped.getItem(id: "a").requestId == 1)
    }

    @Test func theCarProfileTravelsInTheVendorExtensionData() throws {
        let options = CarProfileOptions(maxTabs: 2, errorRendering: .legacy, maxDepth: 5, artSize: 200)
        let profile = options.profile
        #expect(profile.maxRootTabs == 2)
        #expect(profile.maxDepth == 5)
        #expect(profile.errorScreenSupport == .legacy)
        #expect(profile.artworkSizes == [DashportMedia.ArtworkSize(width: 200, height: 200)])
        #expect(profile.supportsSearch == true)

        let configuration = HeadUnitConfiguration().withDashportProfile(profile)
        #expect(configuration.dashportMediaChannel == 16)
        #expect(configuration.car.services.count == HeadUnitConfiguration().car.services.count)
        guard case .vendorExtension(let name, let data)? = configuration.car.service(onChannel: 16)?.kind else {
            Issue.record("no vendor extension on channel 16")
            return
        }
        #expect(name == "dashport.media")
        #expect(try DashportMedia.CarProfile(serializedBytes: data) == profile)

        var bare = HeadUnitConfiguration()
        bare.car.services = [CarService(channel: 16, kind: .mediaPlaybackStatus)]
        #expect(bare.withDashportProfile(profile).dashportMediaChannel == 17, "added on the first free channel")

        let message = MediaChannelClient.carProfileMessage(profile)
        #expect(message.messageId == 0x8002)
        #expect(message.body == profile.serializedBytes())
    }
}
