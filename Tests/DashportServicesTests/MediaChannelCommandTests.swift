// Play on the media channel: PLAY_FROM_MEDIA_ID, PLAY_FROM_SEARCH and PLAYBACK_COMMAND to session
// commands, and the session's answers (fake and from a real SessionCore) to COMMAND_RESULT.

import DashportTestSupport
import DashportClock
import DashportBrowse
import DashportMessages
import DashportSession
import Testing
@testable import DashportServices

/// A session handler that accepts whatever is declared and changes nothing.
struct MediaChannelQuietHandler: SessionHandler {
    var declared: Set<SessionCapability>

    var initialCapabilities: Set<SessionCapability> { declared }

    func pause(session: SessionBroadcaster) async throws {}
    func seekTo(_ positionMs: Int64, session: SessionBroadcaster) async throws {}
}

@Suite("Media channel: commands")
struct MediaChannelCommandTests {
    typealias Wire = DashportMedia.PlaybackCommand.Command
    static let empty = DashportMedia.Empty()

    static let mappings: [(Wire, SessionCommand)] = [
        (.play(empty), .play), (.pause(empty), .pause), (.stop(empty), .stop), (.seekToMs(42_000), .seekTo(ms: 42_000)),
        (.seekToMs(-5), .seekTo(ms: -5)), (.skipToNext(empty), .skipToNext), (.skipToPrevious(empty), .skipToPrevious),
        (.skipToQueueItem(3), .skipToQueueItem(3)), (.setRate(1.5), .setRate(1.5)),
        (.setRepeatMode(.off), .setRepeatMode(.none)), (.setRepeatMode(.one), .setRepeatMode(.one)),
        (.setRepeatMode(.all), .setRepeatMode(.all)), (.setShuffle(true), .setShuffle(true)),
        (.jumpForward(DashportMedia.Jump()), .jumpForward), (.jumpBack(DashportMedia.Jump(ms: 0)), .jumpBack),
        (.setSleepTimer(DashportMedia.SleepTimer(until: .durationMs(60_000))), .setSleepTimer(.duration(ms: 60_000))),
        (.setSleepTimer(DashportMedia.SleepTimer(until: .endOfTrack(empty))), .setSleepTimer(.endOfTrack)),
        (.cancelSleepTimer(empty), .cancelSleepTimer),
        (
            .customAction(
                DashportMedia.CustomAction(
                    name: "like",
                    extras: [
                        .init(key: "s", value: .stringValue("x")), .init(key: "i", value: .intValue(-7)),
                        .init(key: "d", value: .doubleValue(0.25)), .init(key: "b", value: .boolValue(true)), .init(key: "n"),
                        .init(key: "s", value: .stringValue("later wins")),
                    ])), .customAction(name: "like", extras: ["s": "later wins", "i": "-7", "d": "0.25", "b": "true", "n": ""])
        ),
    ]

    @Test(arguments: mappings)
    func playbackCommandBecomesTheSessionCommand(wire: Wire, expected: SessionCommand) throws {
        var car = MediaChannelFakeCar()
        let actions = car.send(.playbackCommand, DashportMedia.PlaybackCommand(requestId: 8, command: wire))
        let ticket = try MediaChannelFakeCar.ticket(actions)
        #expect(actions == [.command(ticket, expected, .dashportCar(id: "car-1"))])
        let result = try MediaChannelFakeCar.commandResult(car.service.commandAnswered(ticket, .accepted))
        #expect(result == DashportMedia.CommandResult(requestId: 8, accepted: true))
    }

    @Test func jumpsWithAnAmountBecomeSeeksFromTheLastState() throws {
        var car = MediaChannelFakeCar()
        let state = PlaybackState(status: .playing, position: PositionAnchor(valueMs: 10_000, at: ClockInstant(milliseconds: 1000)))
        _ = car.update(.mediaItem(MediaItemState(item: MediaItem(id: "t", durationMs: 100_000))), now: .zero)
        _ = car.update(.playbackState(state), now: .zero)
        let forward = car.send(
            .playbackCommand, DashportMedia.PlaybackCommand(requestId: 1, command: .jumpForward(DashportMedia.Jump(ms: 5000))), now: 3000)
        #expect(forward == [.command(try MediaChannelFakeCar.ticket(forward), .seekTo(ms: 17_000), .dashportCar(id: "car-1"))])
        let back = car.send(
            .playbackCommand, DashportMedia.PlaybackCommand(requestId: 2, command: .jumpBack(DashportMedia.Jump(ms: 30_000))), now: 3000)
        #expect(back == [.command(try MediaChannelFakeCar.ticket(back), .seekTo(ms: 0), .dashportCar(id: "car-1"))])
    }

    @Test func commandsRefusedAtOnce() throws {
        var car = MediaChannelFakeCar()
        let cases: [(Wire?, DashportMedia.CommandResult.Reason)] = [
            (nil, .notSupported), (.setRepeatMode(DashportMedia.RepeatMode(rawValue: 9)), .invalidArgument),
            (.setSleepTimer(DashportMedia.SleepTimer()), .invalidArgument),
            (.customAction(DashportMedia.CustomAction(name: "")), .invalidArgument),
        ]
        for (index, (wire, reason)) in cases.enumerated() {
            let result = try MediaChannelFakeCar.commandResult(
                car.send(.playbackCommand, DashportMedia.PlaybackCommand(requestId: UInt32(index), command: wire)))
            #expect(result.requestId == UInt32(index) && !result.accepted && result.reason == reason)
        }
        #expect(car.service.inFlightCount == 0)
    }

    @Test func playFromMediaIdAndSearch() throws {
        var car = MediaChannelFakeCar()
        let play = car.send(.playFromMediaId, DashportMedia.PlayFromMediaId(requestId: 1, mediaId: "track-9"))
        #expect(play == [.command(try MediaChannelFakeCar.ticket(play), .playFromMediaId("track-9"), .dashportCar(id: "car-1"))])
        let focuses: [(DashportMedia.SearchFocus?, SearchFocus?)] = [
            (nil, nil), (.unspecified, nil), (.artist, .artist), (.album, .album), (.track, .song), (.playlist, .playlist),
            (.genre, .genre), (.radio, nil), (.podcast, nil), (.audiobook, nil), (DashportMedia.SearchFocus(rawValue: 77), nil),
        ]
        for (wire, focus) in focuses {
            let actions = car.send(.playFromSearch, DashportMedia.PlayFromSearch(requestId: 2, query: "blue", focus: wire))
            let ticket = try MediaChannelFakeCar.ticket(actions)
            #expect(actions == [.command(ticket, .playFromSearch(query: "blue", focus: focus), .dashportCar(id: "car-1"))])
            _ = car.service.commandAnswered(ticket, .accepted)
        }
    }

    /// The list the car played from travels to the core; an empty one is absent, a too long one
    /// is refused like a too long media id.
    @Test func playFromMediaIdCarriesTheParentTheCarBrowsed() throws {
        var car = MediaChannelFakeCar()
        let cases: [(String?, SessionCommand)] = [
            ("album-night-drive", .playFromMediaId("nd-2", parentId: "album-night-drive")),
            ("", .playFromMediaId("nd-2", parentId: nil)), (nil, .playFromMediaId("nd-2", parentId: nil)),
        ]
        for (requestId, (parentId, expected)) in zip(UInt32(1)..., cases) {
            let actions = car.send(
                .playFromMediaId, DashportMedia.PlayFromMediaId(requestId: requestId, mediaId: "nd-2", parentId: parentId))
            let ticket = try MediaChannelFakeCar.ticket(actions)
            #expect(actions == [.command(ticket, expected, .dashportCar(id: "car-1"))])
            _ = car.service.commandAnswered(ticket, .accepted)
        }
        let long = String(repeating: "p", count: car.service.configuration.maxIdBytes + 1)
        let refused = car.send(.playFromMediaId, DashportMedia.PlayFromMediaId(requestId: 9, mediaId: "nd-2", parentId: long))
        #expect(!refused.contains { if case .command = $0 { true } else { false } })
    }

    @Test func playFromSearchWithoutServerSearchIsNotSupported() throws {
        var car = MediaChannelFakeCar(supportsSearch: false)
        let result = try MediaChannelFakeCar.commandResult(
            car.send(.playFromSearch, DashportMedia.PlayFromSearch(requestId: 5, query: "x")))
        #expect(result.requestId == 5 && !result.accepted && result.reason == .notSupported)
    }

    /// Performs a command action on the real core and hands the answer back.
    static func perform(
        _ car: inout MediaChannelFakeCar, _ id: DashportMedia.MessageId, _ message: some WireMessage, on core: SessionCore
    ) async throws -> DashportMedia.CommandResult {
        guard case .command(let ticket, let command, let source) = try #require(car.send(id, message).first) else {
            throw MediaChannelTestFailure.wrongMessage
        }
        let result = await core.perform(command, from: source)
        return try MediaChannelFakeCar.commandResult(car.service.commandAnswered(ticket, result))
    }

    @Test func aCommandOutsideTheCapabilitiesIsNotInCapabilities() async throws {
        var car = MediaChannelFakeCar()
        let core = SessionCore(handler: MediaChannelQuietHandler(declared: [.play]), clock: ManualClock())
        let result = try await Self.perform(
            &car, .playbackCommand, DashportMedia.PlaybackCommand(requestId: 31, command: .pause(Self.empty)), on: core)
        #expect(result.requestId == 31 && !result.accepted)
        #expect(result.reason == .notInCapabilities)
        #expect(result.message == "pause is not in the declared capabilities")
    }

    @Test func theCoreSaysNotSupportedForSearchWithoutAProvider() async throws {
        var car = MediaChannelFakeCar()
        let core = SessionCore(handler: MediaChannelQuietHandler(declared: [.play, .playFromSearch]), clock: ManualClock())
        let result = try await Self.perform(
            &car, .playFromSearch, DashportMedia.PlayFromSearch(requestId: 32, query: "anything"), on: core)
        #expect(result.requestId == 32 && !result.accepted && result.reason == .notSupported)
    }

    @Test func theCoresOtherRefusalsAreClassified() async throws {
        var car = MediaChannelFakeCar()
        let core = SessionCore(handler: MediaChannelQuietHandler(declared: Set(SessionCapability.allCases)), clock: ManualClock())
        let seek = try await Self.perform(
            &car, .playbackCommand, DashportMedia.PlaybackCommand(requestId: 1, command: .seekToMs(-1)), on: core)
        #expect(seek.reason == .invalidArgument)
        let skip = try await Self.perform(
            &car, .playbackCommand, DashportMedia.PlaybackCommand(requestId: 2, command: .skipToQueueItem(4)), on: core)
        #expect(skip.reason == .invalidArgument)
        let missing = try await Self.perform(&car, .playFromMediaId, DashportMedia.PlayFromMediaId(requestId: 3, mediaId: "nope"), on: core)
        #expect(missing.reason == .notFound)
        let stop = try await Self.perform(
            &car, .playbackCommand, DashportMedia.PlaybackCommand(requestId: 4, command: .stop(Self.empty)), on: core)
        #expect(stop.reason == .notSupported)
        let custom = try await Self.perform(
            &car, .playbackCommand,
            DashportMedia.PlaybackCommand(requestId: 5, command: .customAction(DashportMedia.CustomAction(name: "undeclared"))),
            on: core)
        #expect(custom.reason == .notInCapabilities)
        let pause = try await Self.perform(
            &car, .playbackCommand, DashportMedia.PlaybackCommand(requestId: 6, command: .pause(Self.empty)), on: core)
        #expect(pause.accepted && pause.reason == nil)
    }

    @Test(arguments: [
        ("play is not in the declared capabilities", DashportMedia.CommandResult.Reason.notInCapabilities),
        ("there is no item 'play is not in the declared capabilities'", .notFound),
        ("notSupported: this library cannot be searched", .notSupported),
        ("stop is not supported by this player", .notSupported),
        ("there is nothing to play", .notFound), ("'Song' is not playable", .notFound),
        ("nothing playable was found for 'x'", .notFound), ("rate 99.0 is not a finite number above 0", .invalidArgument),
        ("40 extras, more than 32", .invalidArgument), ("already at the end of the queue", .invalidArgument),
        ("the session is closed", .failed), ("the player failed: boom", .failed), ("", .failed),
    ])
    func rejectionWordsMapToReasons(words: String, reason: DashportMedia.CommandResult.Reason) {
        #expect(MediaChannelService.wireReason(forRejection: words) == reason)
    }

    @Test func longRejectionMessagesAreCutOnACharacterBoundary() throws {
        var car = MediaChannelFakeCar()
        let ticket = try MediaChannelFakeCar.ticket(car.send(.playFromMediaId, DashportMedia.PlayFromMediaId(requestId: 1, mediaId: "m")))
        let words = String(repeating: "ü", count: 600)  // 1200 bytes
        let result = try MediaChannelFakeCar.commandResult(car.service.commandAnswered(ticket, .rejected(reason: words)))
        #expect(result.message == String(repeating: "ü", count: 512))
        #expect(result.reason == .failed)
    }
}
