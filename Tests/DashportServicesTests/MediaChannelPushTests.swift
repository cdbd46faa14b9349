// State pushes: a real SessionCore with the demo handler on a manual clock, its updates fed through
// the service, and every push the car decodes compared with the update field by field.

import DashportTestSupport
import DashportClock
import DashportBrowse
import DashportMessages
import DashportSession
import Testing
import DashportLog
@testable import DashportServices

/// root ─ albums ─ album ─ t1 (10 s), t2 (20 s), t3 (30 s), each with a cover.
struct MediaChannelPushLibrary: BrowseProvider {
    static func cover(_ id: String) -> String { "https://covers.example/private/\(id).jpg" }

    static let tree: [String: [BrowseItem]] = [
        BrowseItem.rootId: [BrowseItem(id: "albums", title: "Albums", browsable: true)],
        "albums": [BrowseItem(id: "album", title: "Album", artworkUri: cover("album"), browsable: true, mediaType: .album)],
        "album": [("t1", 10), ("t2", 20), ("t3", 30)].map { id, seconds in
            BrowseItem(
                id: id, title: id.uppercased(), artworkUri: cover(id), playable: true, mediaType: .music, artist: "Artist",
                album: "Album", durationMs: Int64(seconds) * 1000)
        },
    ]

    func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        let all = Self.tree[parentId] ?? []
        let start = min(all.count, page * pageSize)
        return Array(all[start..<min(all.count, start + pageSize)])
    }

    func item(id: String) async throws -> BrowseItem? {
        Self.tree.values.lazy.flatMap { $0 }.first { $0.id == id }
    }
}

/// One session update, what the service sent for it, and the session time it was handed over.
struct MediaChannelPush {
    var update: SessionUpdate
    var received: [MediaChannelReceived]
    var atMs: Int64
}

/// A session core, its subscription and a fake car whose service gets every update.
struct MediaChannelSessionHarness {
    let clock = ManualClock(start: ClockInstant(milliseconds: 1000))
    let core: SessionCore
    var updates: AsyncStream<SessionUpdate>.Iterator
    var car = MediaChannelFakeCar()
    var sentinels = 0

    init() async {
        core = SessionCore(handler: DemoPlaybackHandler(library: MediaChannelPushLibrary(), clock: clock, shuffleSeed: 1), clock: clock)
        updates = await core.subscribe().makeAsyncIterator()
    }

    /// Every update broadcast since the last pump, each with what the service sent for it. A
    /// reported sentinel marks the end, so this never waits for an update that does not come.
    mutating func pump() async throws -> [MediaChannelPush] {
        sentinels += 1
        let sentinel = SessionError(code: .handlerFailed, severity: .degraded, message: "sentinel \(sentinels)")
        await core.report(sentinel)
        var pushed: [MediaChannelPush] = []
        while let update = await updates.next(), update != .error(sentinel) {
            let now = clock.now
            let received = try MediaChannelFakeCar.received(car.update(update, now: now))
            pushed.append(MediaChannelPush(update: update, received: received, atMs: now.milliseconds))
        }
        return pushed
    }

    /// A request from the car performed on the core; the car gets the result.
    mutating func command(_ id: DashportMedia.MessageId, _ message: some WireMessage) async throws -> DashportMedia.CommandResult {
        let actions = car.send(id, message, now: clock.now.milliseconds)
        guard case .command(let ticket, let command, let source) = try #require(actions.first) else {
            throw MediaChannelTestFailure.wrongMessage
        }
        return try MediaChannelFakeCar.commandResult(car.service.commandAnswered(ticket, await core.perform(command, from: source)))
    }

    mutating func playback(_ command: DashportMedia.PlaybackCommand.Command) async throws -> DashportMedia.CommandResult {
        try await self.command(.playbackCommand, DashportMedia.PlaybackCommand(requestId: 1, command: command))
    }
}

@Suite("Media channel: state pushes")
struct MediaChannelPushTests {
    static let empty = DashportMedia.Empty()

    /// A state as a car sees it: the anchor's rate counts only while playing.
    static func visible(_ state: PlaybackState) -> PlaybackState {
        var copy = state
        if copy.status != .playing { copy.position.rate = 0 }
        return copy
    }

    @Test func pushesMirrorASessionFieldByField() async throws {
        var harness = await MediaChannelSessionHarness()
        var seen: [MediaChannelPush] = []

        // Before the hello nothing goes out; the replayed state follows the hello.
        let replay = try await harness.pump()
        #expect(replay.count == 3 && replay.allSatisfy(\.received.isEmpty))
        let openedAt = harness.clock.now
        let opened = try MediaChannelFakeCar.received(harness.car.service.open(now: openedAt))
        #expect(opened.count == 4)
        guard case .hello = try #require(opened.first) else {
            Issue.record("the hello is not first")
            return
        }
        seen += zip(replay, opened.dropFirst()).map { MediaChannelPush(update: $0.update, received: [$1], atMs: openedAt.milliseconds) }

        #expect(try await harness.command(.playFromMediaId, DashportMedia.PlayFromMediaId(requestId: 1, mediaId: "t2")).accepted)
        seen += try await harness.pump()
        await harness.clock.advance(by: .seconds(4))
        #expect(try await harness.pump().isEmpty)  // the anchor moves on its own: no push
        #expect(try await harness.playback(.pause(Self.empty)).accepted)
        seen += try await harness.pump()
        #expect(try await harness.playback(.seekToMs(1000)).accepted)
        #expect(try await harness.playback(.setRate(2)).accepted)
        #expect(try await harness.playback(.play(Self.empty)).accepted)
        #expect(try await harness.playback(.setRepeatMode(.all)).accepted)
        seen += try await harness.pump()
        await harness.clock.advance(by: .seconds(10))  // t2's rest at 2×: 9.5 s, then t3 starts
        seen += try await harness.pump()
        #expect(try await harness.playback(.setSleepTimer(DashportMedia.SleepTimer(until: .durationMs(1500)))).accepted)
        await harness.clock.advance(by: .milliseconds(1500))
        let slept = try await harness.pump()
        seen += slept
        #expect(Array(slept.map(\.update).suffix(2)) == [.sleepTimerFired, .sleepTimer(nil)])
        await harness.core.report(SessionError(code: .artworkFailed, severity: .degraded, message: "cover gone"))
        seen += try await harness.pump()

        let kinds = seen.map(\.update)
        #expect(kinds.contains { if case .queue(let q) = $0 { q.items.count == 3 } else { false } })
        #expect(kinds.contains(.sleepTimerFired))
        #expect(kinds.contains { if case .playbackState(let s) = $0 { s.status == .paused && s.position.rate == 2 } else { false } })
        #expect(seen.count >= 12)
        var lastPushed: PlaybackState?
        var unseen = 0
        for push in seen {
            if case .playbackState(let state) = push.update {
                if push.received.isEmpty {
                    // Invisible to a car: only the rate of an anchor that does not move changed.
                    #expect(lastPushed.map(Self.visible) == Self.visible(state))
                    unseen += 1
                    continue
                }
                lastPushed = state
            }
            try Self.expectMirrors(push, registry: harness.car.registry)
        }
        #expect(unseen == 0)  // setRate(2) while paused shows: the speed travels while paused too
        // The car saw the session's final state, item and queue last.
        let final = await harness.core.snapshot
        let lastState = seen.last { if case .playbackState = $0.update { true } else { false } }
        let lastItem = seen.last { if case .mediaItem = $0.update { true } else { false } }
        let lastQueue = seen.last { if case .queue = $0.update { true } else { false } }
        #expect(lastState?.update == .playbackState(final.playbackState))
        #expect(lastItem?.update == .mediaItem(final.mediaItem))
        #expect(lastQueue?.update == .queue(final.queue))
        #expect(harness.car.service.session.playbackState == final.playbackState)
    }

    @Test func stateAlreadyPushedIsNotPushedAgain() async throws {
        var harness = await MediaChannelSessionHarness()
        let hello = harness.car.service.open(now: harness.clock.now)
        #expect(hello.count == 1)
        let first = try await harness.pump()
        #expect(first.map(\.received.count) == [1, 1, 1])
        let snapshot = await harness.core.snapshot
        for update in [SessionUpdate.queue(snapshot.queue), .mediaItem(snapshot.mediaItem), .playbackState(snapshot.playbackState)] {
            #expect(harness.car.update(update, now: harness.clock.now).isEmpty)
        }
    }

    @Test func coverURIsNeverLeaveOnlyKeys() async throws {
        var harness = await MediaChannelSessionHarness()
        _ = harness.car.service.open(now: harness.clock.now)
        _ = try await harness.pump()
        _ = try await harness.command(.playFromMediaId, DashportMedia.PlayFromMediaId(requestId: 1, mediaId: "t1"))
        var bodies: [[UInt8]] = []
        let snapshot = await harness.core.snapshot
        var car = harness.car
        car.service.session = SessionMirror()
        for update in [SessionUpdate.queue(snapshot.queue), .mediaItem(snapshot.mediaItem)] {
            for case .send(let message) in car.update(update, now: harness.clock.now) { bodies.append(message.body) }
        }
        #expect(bodies.count == 2)
        for body in bodies {
            #expect(!body.containsSubsequence(Array("covers.example".utf8)))
            #expect(body.containsSubsequence(Array("key-".utf8)))
        }
    }

    @Test func aQueueTooLargeForOneMessageIsCutFromTheEnd() throws {
        var car = MediaChannelFakeCar()
        _ = car.service.open(now: .zero)
        let title = String(repeating: "q", count: 4096)
        let queue = QueueState(items: (0..<300).map { MediaItem(id: "e\($0)", title: title) })
        let actions = car.update(.queue(queue), now: .zero)
        guard case .queueState(let wire) = try MediaChannelFakeCar.only(actions), case .send(let message) = actions[0] else {
            Issue.record("no queue push")
            return
        }
        #expect(message.body.count <= WireLimits.maximumMessageBytes)
        #expect(wire.items.count > 200 && wire.items.count < 300)
        #expect(wire.items.map(\.id) == queue.items.prefix(wire.items.count).map(\.id))
        #expect(car.log.contains(.warning, "does not fit one message"))
    }

    @Test func sessionErrorsMapToTheSchemasCodes() {
        let expected: [SessionError.Code: Int32] = [
            .browseRootRejected: 1, .metadataMismatch: 2, .artworkFailed: 3, .browseDepthExceeded: 4,
            .browseCacheDiscarded: 5, .browseProviderUnavailable: 6, .playbackFailed: 7, .handlerFailed: 7,
            .restoreFailed: 8, .persistenceFailed: 0,
        ]
        for code in SessionError.Code.allCases {
            let wire = MediaChannelService.wireError(SessionError(code: code, severity: .fatal, message: "m"))
            #expect(wire.code.rawValue == expected[code], "\(code)")
            #expect(wire.severity == .fatal && wire.message == "m" && wire.subject == nil)
        }
        #expect(MediaChannelService.wireError(SessionError(code: .artworkFailed, severity: .degraded, message: "")).severity == .degraded)
    }

    @Test func customActionsCarryIconKeys() throws {
        var car = MediaChannelFakeCar()
        _ = car.service.open(now: .zero)
        let state = PlaybackState(
            status: .playing, capabilities: [.customAction],
            customActions: [
                CustomAction(name: "like", label: "Like", iconUri: "https://icons.example/heart.png"),
                CustomAction(name: "skip30", label: "+30 s"),
            ])
        guard case .playbackState(let wire) = try MediaChannelFakeCar.only(car.update(.playbackState(state), now: .zero))
        else {
            Issue.record("no state push")
            return
        }
        #expect(
            wire.customActions == [
                DashportMedia.CustomActionInfo(name: "like", label: "Like", iconArtworkKey: "key-1"),
                DashportMedia.CustomActionInfo(name: "skip30", label: "+30 s", iconArtworkKey: nil),
            ])
        #expect(wire.capabilities == [.customAction])
    }
}
