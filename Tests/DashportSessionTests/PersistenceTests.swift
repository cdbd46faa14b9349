import DashportTestSupport
import DashportClock
import Foundation
import Testing
@testable import DashportSession

@Suite struct PersistenceTests {
    /// Plays `id` on a demo core over `directory` for `seconds`, then pauses it there.
    static func persistPaused(_ id: String, after seconds: Int64, in directory: URL) async {
        let clock = ManualClock()
        let core = makeDemoCore(clock: clock, store: SessionStore(directory: directory))
        _ = await core.perform(.playFromMediaId(id), from: .local)
        await clock.advance(by: .seconds(seconds))
        _ = await core.perform(.pause, from: .local)
        await core.close()
    }

    /// A new core on `directory` (a restart), restored.
    static func restart(_ directory: URL) async -> (SessionCore, RestoreResult, [SessionError]) {
        let core = makeDemoCore(clock: ManualClock(start: ClockInstant(milliseconds: 777)), store: SessionStore(directory: directory))
        let updates = await core.subscribe()
        let result = await core.restore()
        await core.close()
        return (core, result, await drain(updates).compactMap(\.error))
    }

    @Test func anEmptyDirectoryRestoresNothing() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        let (core, result, errors) = await Self.restart(directory)
        #expect(result == .empty)
        #expect(errors.isEmpty)
        #expect(await core.snapshot.isIdle)
    }

    @Test func aCoreWithoutAStoreRestoresNothing() async {
        let core = makeDemoCore(clock: ManualClock())
        #expect(await core.restore() == .empty)
    }

    @Test func aPausedSessionSurvivesARestart() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        await Self.persistPaused("a2", after: 45, in: directory)
        let (core, result, errors) = await Self.restart(directory)
        #expect(result == .restored)
        #expect(errors.isEmpty)
        let snapshot = await core.snapshot
        #expect(snapshot.playbackState.status == .paused)
        #expect(snapshot.playbackState.position == PositionAnchor(valueMs: 45_000, at: ClockInstant(milliseconds: 777)))
        #expect(snapshot.playbackState.queueIndex == 1)
        #expect(snapshot.queue.items.map(\.id) == ["a1", "a2", "a3"])
        #expect(snapshot.queue.title == "Album A")
        #expect(snapshot.mediaItem.item?.id == "a2")
    }

    @Test func aPlayingSessionComesBackPausedAtTheLastWrite() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        let clock = ManualClock()
        let core = makeDemoCore(clock: clock, store: SessionStore(directory: directory))
        _ = await core.perform(.playFromMediaId("a3"), from: .local)
        await clock.advance(by: .seconds(45))  // checkpoint at 30 s; then the process dies (no close)
        await core.writesSettled()  // the 30 s write reached the disk long before the kill
        let (restored, result, _) = await Self.restart(directory)
        #expect(result == .restored)
        #expect(await restored.playbackState.status == .paused)
        #expect(await restored.playbackState.position.valueMs == 30_000)
        _ = core
    }

    @Test func aCleanCloseWritesTheCurrentPosition() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        let clock = ManualClock()
        let core = makeDemoCore(clock: clock, store: SessionStore(directory: directory))
        _ = await core.perform(.playFromMediaId("a3"), from: .local)
        await clock.advance(by: .seconds(45))  // checkpoint at 30 s; then the server stops cleanly
        await core.close()
        let (restored, result, _) = await Self.restart(directory)
        #expect(result == .restored)
        #expect(await restored.playbackState.status == .paused)
        #expect(await restored.playbackState.position.valueMs == 45_000)
    }

    @Test func aPositionPastTheDurationIsClamped() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        await Self.persistPaused("a1", after: 50, in: directory)
        try Self.editFile(in: directory) { $0.snapshot.playbackState.position.valueMs = 999_999 }
        let (core, result, _) = await Self.restart(directory)
        #expect(result == .restored)
        #expect(await core.playbackState.position.valueMs == 100_000)
    }

    @Test func checkpointsFollowTheConfiguredCadenceWhilePlaying() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        let store = SessionStore(directory: directory)
        let clock = ManualClock()
        let configuration = SessionConfiguration(checkpointIntervalMs: 10_000, subscriberBufferLimit: 100)
        let core = makeDemoCore(clock: clock, store: store, configuration: configuration)
        _ = await core.perform(.playFromMediaId("a3"), from: .local)
        #expect(try await Self.savedPosition(store, core) == 0)
        await clock.advance(by: .milliseconds(9_999))
        #expect(try await Self.savedPosition(store, core) == 0)
        await clock.advance(by: .milliseconds(1))
        #expect(try await Self.savedPosition(store, core) == 10_000)
        await clock.advance(by: .seconds(25))
        #expect(try await Self.savedPosition(store, core) == 30_000)
        _ = await core.perform(.pause, from: .local)  // t = 35 s: written at once, then no more checkpoints
        #expect(try await Self.savedPosition(store, core) == 35_000)
        await clock.advance(by: .seconds(60))
        #expect(clock.pendingTimerCount == 0)
        #expect(try await Self.savedPosition(store, core) == 35_000)
    }

    /// A player reporting its position many times while playing costs no write until the next
    /// checkpoint; the item, the queue and a pause are written at once; so is everything on close.
    /// Writes are counted by the writer (a seam), never by time.
    @Test func manyStatusBroadcastsCostABoundedNumberOfWrites() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = SessionStore(directory: temporary.url)
        let clock = ManualClock()
        let configuration = SessionConfiguration(checkpointIntervalMs: 10_000, subscriberBufferLimit: 1000)
        let core = makeDemoCore(clock: clock, store: store, configuration: configuration)
        #expect(await core.perform(.playFromMediaId("a1"), from: .local) == .accepted)
        await core.writesSettled()
        let afterPlay = core.sessionWrites
        #expect(afterPlay >= 1)

        // 200 position reports (each a re-anchor a few ms off the projection, and buffering
        // progress) within one checkpoint interval.
        for report in 1...200 {
            await clock.advance(by: .milliseconds(20))
            var state = await core.playbackState
            state.position = PositionAnchor(valueMs: Int64(report) * 20 + 7, at: clock.now)
            state.bufferedPositionMs = Int64(report) * 100
            try await core.broadcaster.setPlaybackState(state)
        }
        await core.writesSettled()
        #expect(core.sessionWrites == afterPlay, "no write for position reports before the checkpoint")

        await clock.advance(by: .seconds(6))  // t = 10 s: the checkpoint
        await core.writesSettled()
        #expect(core.sessionWrites == afterPlay + 1)
        #expect(try Self.savedPosition(store) >= 4_000)

        #expect(await core.perform(.skipToNext, from: .local) == .accepted)  // a new item: at once
        await core.writesSettled()
        let afterNext = core.sessionWrites
        #expect(afterNext > afterPlay + 1)
        #expect(await core.perform(.pause, from: .local) == .accepted)  // a pause: at once
        await core.writesSettled()
        #expect(core.sessionWrites == afterNext + 1)
        guard case .loaded(let paused) = store.load() else { throw StoreReadFailed() }
        #expect(paused.snapshot.playbackState.status == .paused)
        #expect(paused.snapshot.mediaItem.item?.id == "a2")

        // Paused, a player's report of buffering progress waits; close writes it.
        var state = await core.playbackState
        state.bufferedPositionMs = 12_345
        try await core.broadcaster.setPlaybackState(state)
        await core.writesSettled()
        #expect(core.sessionWrites == afterNext + 1)
        await core.close()
        #expect(core.sessionWrites == afterNext + 2)
        guard case .loaded(let closed) = store.load() else { throw StoreReadFailed() }
        #expect(closed.snapshot.playbackState.bufferedPositionMs == 12_345)
    }

    @Test func theCheckpointIntervalIsAtLeastOneSecond() {
        #expect(SessionConfiguration(checkpointIntervalMs: 10).checkpointIntervalMs == 1000)
        #expect(SessionConfiguration(checkpointIntervalMs: -5).checkpointIntervalMs == 1000)
        #expect(SessionConfiguration().checkpointIntervalMs == 30_000)
    }

    @Test func writesAreAtomicAndPrivate() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        await Self.persistPaused("a1", after: 5, in: directory)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files == ["session.json"])
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("session.json").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test func aTruncatedFileIsCorrupt() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        await Self.persistPaused("a1", after: 5, in: directory)
        let url = directory.appendingPathComponent("session.json")
        let data = try Data(contentsOf: url)
        try data.prefix(data.count / 2).write(to: url)
        try await Self.expectCorrupt(directory)
    }

    @Test(arguments: [Data(), Data("not json".utf8), Data([0xFF, 0x00, 0x13]), Data("{\"version\":1}".utf8), Data("[1,2]".utf8)])
    func garbageIsCorrupt(contents: Data) async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        try contents.write(to: directory.appendingPathComponent("session.json"))
        try await Self.expectCorrupt(directory)
    }

    @Test func anOversizedFileIsCorruptWithoutBeingDecoded() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        await Self.persistPaused("a1", after: 5, in: directory)
        let store = SessionStore(directory: directory, maxFileBytes: 64)
        guard case .corrupt(let reason) = store.load() else {
            Issue.record("an oversized file was read")
            return
        }
        #expect(reason.contains("more than 64 bytes"))
    }

    @Test func anInvalidPersistedStateIsCorrupt() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        await Self.persistPaused("a1", after: 5, in: directory)
        try Self.editFile(in: directory) { $0.snapshot.playbackState.queueIndex = 42 }
        try await Self.expectCorrupt(directory)
    }

    @Test func anUnknownVersionIsLeftAlone() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        await Self.persistPaused("a1", after: 5, in: directory)
        try Self.editFile(in: directory) { $0.version = 99 }
        let (core, result, errors) = await Self.restart(directory)
        #expect(result == .unsupportedVersion(99))
        #expect(errors.map(\.code) == [.restoreFailed])
        #expect(await core.snapshot.isIdle)
    }

    @Test func aFailingWriteIsReportedOnce() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        let blocker = directory.appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: blocker)
        let clock = ManualClock()
        let core = makeDemoCore(clock: clock, store: SessionStore(directory: blocker))
        let updates = await core.subscribe()
        #expect(await core.perform(.playFromMediaId("a1"), from: .local) == .accepted)
        #expect(await core.perform(.pause, from: .local) == .accepted)
        await core.close()
        #expect(await drain(updates).compactMap(\.error).map(\.code) == [.persistenceFailed])
    }

    // MARK: Helpers

    /// The saved position once `core`'s writes have reached the disk.
    static func savedPosition(_ store: SessionStore, _ core: SessionCore) async throws -> Int64 {
        await core.writesSettled()
        return try savedPosition(store)
    }

    static func savedPosition(_ store: SessionStore) throws -> Int64 {
        guard case .loaded(let session) = store.load() else { throw StoreReadFailed() }
        return session.snapshot.playbackState.position.valueMs
    }

    static func editFile(in directory: URL, _ edit: (inout PersistedSession) -> Void) throws {
        let store = SessionStore(directory: directory)
        guard case .loaded(var session) = store.load() else { throw StoreReadFailed() }
        edit(&session)
        try store.save(session)
    }

    static func expectCorrupt(_ directory: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let (core, result, errors) = await Self.restart(directory)
        guard case .corrupt(let reason) = result else {
            Issue.record("expected corrupt, got \(result)", sourceLocation: sourceLocation)
            return
        }
        #expect(!reason.isEmpty, sourceLocation: sourceLocation)
        #expect(errors.map(\.code) == [.restoreFailed], sourceLocation: sourceLocation)
        #expect(await core.snapshot.isIdle, sourceLocation: sourceLocation)
    }

    struct StoreReadFailed: Error {}
}
