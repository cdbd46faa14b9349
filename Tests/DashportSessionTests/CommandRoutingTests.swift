import DashportTestSupport
import DashportClock
import Testing
@testable import DashportSession

@Suite struct CommandRoutingTests {
    static let gated: [SessionCommand] = [
        .play, .pause, .stop, .seekTo(ms: 10), .jumpForward, .jumpBack, .skipToNext, .skipToPrevious,
        .skipToQueueItem(0), .setRate(1.5), .setRepeatMode(.all), .setShuffle(true),
        .customAction(name: "like", extras: [:]), .playFromMediaId("a1"), .playFromSearch(query: "a", focus: nil),
        .setSleepTimer(.duration(ms: 1000)),
    ]

    /// A core whose handler records calls; the queue is a, b, c with a playing at `positionMs`.
    static func makeCore(
        capabilities: Set<SessionCapability> = Set(SessionCapability.allCases), positionMs: Int64 = 0,
        status: PlaybackStatus = .playing, configuration: SessionConfiguration = testConfiguration
    ) async throws -> (SessionCore, RecordingHandler) {
        let handler = RecordingHandler(capabilities: capabilities, library: TestLibrary(tree: TestLibrary.standard.tree, searchable: true))
        let core = SessionCore(handler: handler, clock: ManualClock(), configuration: configuration)
        var state = await core.playbackState
        state.status = status
        state.queueIndex = 0
        state.position = PositionAnchor(valueMs: positionMs, at: .zero)
        if capabilities.contains(.customAction) { state.customActions = [CustomAction(name: "like", label: "Like")] }
        try await core.broadcaster.update(queue: queue(["a", "b", "c"]), playbackState: state)
        return (core, handler)
    }

    @Test(arguments: gated)
    func anUndeclaredCapabilityIsRejectedAndNotDelivered(_ command: SessionCommand) async throws {
        let required = try #require(command.requiredCapability)
        let (core, handler) = try await Self.makeCore(capabilities: Set(SessionCapability.allCases).subtracting([required]))
        let result = await core.perform(command, from: .dashportCar(id: "car-1"))
        #expect(result == .rejected(reason: "\(required.rawValue) is not in the declared capabilities"))
        #expect(await handler.calls.isEmpty)
        #expect(await core.activeSleepTimer == nil)
    }

    @Test(
        arguments: [
            (SessionCommand.play, "play"), (.pause, "pause"), (.stop, "stop"), (.seekTo(ms: 42_000), "seekTo(42000)"),
            (.skipToNext, "skipToNext"), (.skipToPrevious, "skipToPrevious"), (.skipToQueueItem(2), "skipToQueueItem(2)"),
            (.setRate(1.5), "setRate(1.5)"), (.setRepeatMode(.one), "repeat(one)"), (.setShuffle(true), "shuffle(true)"),
            (.customAction(name: "like", extras: ["k": "v"]), "customAction(like,k=v)"),
        ] as [(SessionCommand, String)])
    func aDeclaredCommandIsDeliveredOnce(_ command: SessionCommand, call: String) async throws {
        let (core, handler) = try await Self.makeCore()
        #expect(await core.perform(command, from: .local) == .accepted)
        #expect(await handler.calls == [call])
    }

    @Test(arguments: [(PlaybackStatus.playing, "pause"), (.buffering, "pause"), (.paused, "play"), (.stopped, "play"), (.error, "play")])
    func playPauseToggles(status: PlaybackStatus, call: String) async throws {
        let (core, handler) = try await Self.makeCore(status: status)
        #expect(await core.perform(.playPause, from: .aapKey(car: "hu")) == .accepted)
        #expect(await handler.calls == [call])
    }

    @Test(
        arguments: [
            (SessionCommand.jumpForward, Int64(10_000), "seekTo(25000)"),
            (.jumpForward, 95_000, "seekTo(100000)"),  // clamped to the duration
            (.jumpBack, 40_000, "seekTo(25000)"),
            (.jumpBack, 5_000, "seekTo(0)"),  // clamped to 0
            (.seekTo(ms: 250_000), 0, "seekTo(100000)"),
        ] as [(SessionCommand, Int64, String)])
    func jumpsBecomeAbsoluteSeeksClamped(_ command: SessionCommand, from position: Int64, call: String) async throws {
        let (core, handler) = try await Self.makeCore(positionMs: position, status: .paused)
        #expect(await core.perform(command, from: .local) == .accepted)
        #expect(await handler.calls == [call])
    }

    @Test func jumpDistancesAreConfigurable() async throws {
        let configuration = SessionConfiguration(jumpForwardMs: 30_000, jumpBackMs: 5_000, subscriberBufferLimit: 100)
        let (core, handler) = try await Self.makeCore(positionMs: 20_000, status: .paused, configuration: configuration)
        _ = await core.perform(.jumpForward, from: .local)
        _ = await core.perform(.jumpBack, from: .local)
        #expect(await handler.calls == ["seekTo(50000)", "seekTo(15000)"])
    }

    @Test(arguments: [
        SessionCommand.seekTo(ms: -1), .skipToQueueItem(3), .skipToQueueItem(-1), .setRate(0), .setRate(-1),
        .setRate(.nan), .setRate(.infinity), .setRate(16.5), .customAction(name: "unknown", extras: [:]),
        .customAction(name: "like", extras: Dictionary(uniqueKeysWithValues: (0..<33).map { ("k\($0)", "v") })),
        .playFromMediaId(""), .playFromMediaId(String(repeating: "x", count: 1025)),
    ])
    func outOfRangeArgumentsAreRejectedAndNotDelivered(_ command: SessionCommand) async throws {
        let (core, handler) = try await Self.makeCore()
        let result = await core.perform(command, from: .local)
        #expect(result.reason != nil)
        #expect(await handler.calls.isEmpty)
    }

    @Test func aHandlerDefaultAnswersNotSupported() async throws {
        let core = SessionCore(handler: DefaultsHandler(), clock: ManualClock())
        var state = await core.playbackState
        state.capabilities.insert(.pause)
        try await core.broadcaster.setPlaybackState(state)
        #expect(await core.perform(.pause, from: .local) == .rejected(reason: "pause is not supported by this player"))
        #expect(await core.perform(.play, from: .local) == .rejected(reason: "there is nothing to play"))
    }

    @Test(
        arguments: [
            (Int32(85), SessionCommand.playPause), (86, .stop), (87, .skipToNext), (88, .skipToPrevious),
            (89, .jumpBack), (90, .jumpForward), (126, .play), (127, .pause),
            (0, nil), (4, nil), (66, nil), (65536, nil), (-1, nil),
        ] as [(Int32, SessionCommand?)])
    func aapKeyCodes(code: Int32, command: SessionCommand?) {
        #expect(SessionCommand.fromAAPKeyCode(code) == command)
    }

    @Test func everyBoundMediaKeyMapsToACommand() {
        #expect(SessionCommand.aapMediaKeyCodes.allSatisfy { SessionCommand.fromAAPKeyCode($0) != nil })
    }

    @Test(
        arguments: [
            (Int32(3), SessionCommand.skipToPrevious), (4, .skipToNext), (5, .playPause),
            (0, nil), (1, nil), (2, nil), (6, nil), (7, nil), (99, nil),
        ] as [(Int32, SessionCommand?)])
    func aapPlaybackInputActions(action: Int32, command: SessionCommand?) {
        #expect(SessionCommand.fromAAPPlaybackInput(action) == command)
    }

    @Test func commandsAfterCloseAreRejected() async throws {
        let (core, handler) = try await Self.makeCore()
        await core.close()
        #expect(await core.perform(.pause, from: .local) == .rejected(reason: "the session is closed"))
        #expect(await handler.calls.isEmpty)
    }
}
