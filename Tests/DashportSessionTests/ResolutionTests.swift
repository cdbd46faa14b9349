import DashportTestSupport
import DashportClock
import DashportBrowse
import Testing
@testable import DashportSession

@Suite struct ResolutionTests {
    static func makeCore(library: TestLibrary = .standard) -> (SessionCore, RecordingHandler) {
        let handler = RecordingHandler(library: library)
        return (SessionCore(handler: handler, clock: ManualClock(), configuration: testConfiguration), handler)
    }

    @Test(arguments: [
        ("a2", "playFromMediaId(a2,a1,a2,a3,1)"),  // siblings, without the browsable-only a-notes
        ("a3", "playFromMediaId(a3,a1,a2,a3,2)"),
        ("b1", "playFromMediaId(b1,b1,0)"),
        ("pl-1", "playFromMediaId(pl-1,a2,b1,0)"),  // browsable + playable: its own children
        ("loose", "playFromMediaId(loose,loose,0)"),  // a playable child of the root
    ])
    func playFromMediaIdBuildsTheSiblingQueue(id: String, call: String) async {
        let (core, handler) = Self.makeCore()
        #expect(await core.perform(.playFromMediaId(id), from: .dashportCar(id: "car")) == .accepted)
        #expect(await handler.calls == [call])
    }

    @Test(arguments: [
        ("pl-1", "playFromMediaId(a2,a2,b1,0)"),  // a2 is in Playlist 1 and in Album A:
        ("album-a", "playFromMediaId(a2,a1,a2,a3,1)"),  // each list queues its own tracks
        ("album-b", "playFromMediaId(a2,a1,a2,a3,1)"),  // not in that list: the parent found
        ("nowhere", "playFromMediaId(a2,a1,a2,a3,1)"),  // an unknown list: the same
        ("", "playFromMediaId(a2,a1,a2,a3,1)"),
    ])
    func theListTheCarPlayedFromIsTheQueue(parentId: String, call: String) async {
        let (core, handler) = Self.makeCore()
        #expect(await core.perform(.playFromMediaId("a2", parentId: parentId), from: .dashportCar(id: "car")) == .accepted)
        #expect(await handler.calls == [call])
    }

    @Test func theSameTrackFromTwoListsGetsTwoQueues() async {
        let core = makeDemoCore(clock: ManualClock())
        #expect(await core.perform(.playFromMediaId("a2", parentId: "pl-1"), from: .local) == .accepted)
        let fromPlaylist = await core.snapshot.queue
        #expect(await core.perform(.playFromMediaId("a2", parentId: "album-a"), from: .local) == .accepted)
        let fromAlbum = await core.snapshot.queue
        #expect(fromPlaylist.items.map(\.id) == ["a2", "b1"])
        #expect(fromPlaylist.title == "Playlist 1")
        #expect(fromAlbum.items.map(\.id) == ["a1", "a2", "a3"])
        #expect(fromAlbum.title == "Album A")
    }

    @Test func theQueueIsTitledByTheParent() async throws {
        let (core, _) = Self.makeCore()
        let request = try await core.playRequest(for: TestLibrary.track("a1", seconds: 100))
        #expect(request.queue.title == "Album A")
        #expect(request.queue.items.first == MediaItem(TestLibrary.track("a1", seconds: 100)))
    }

    @Test(arguments: [("nope", "there is no item 'nope'"), ("album-a", "'Album A' is not playable")])
    func unknownOrUnplayableIdsAreRejected(id: String, reason: String) async {
        let (core, handler) = Self.makeCore()
        #expect(await core.perform(.playFromMediaId(id), from: .local) == .rejected(reason: reason))
        #expect(await handler.calls.isEmpty)
    }

    @Test func aParentTheHandlerKnowsSkipsTheWalk() async throws {
        struct Knowing: SessionHandler {
            func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
                parentId == "hidden" ? [TestLibrary.track("h1", seconds: 1), TestLibrary.track("h2", seconds: 1)] : []
            }
            func item(id: String) async throws -> BrowseItem? { TestLibrary.track(id, seconds: 1) }
            func parentId(of id: String) async throws -> String? { "hidden" }
        }
        let core = SessionCore(handler: Knowing(), clock: ManualClock())
        let request = try await core.playRequest(for: TestLibrary.track("h2", seconds: 1))
        #expect(request.queue.items.map(\.id) == ["h1", "h2"])
        #expect(request.startIndex == 1)
    }

    @Test func theParentWalkIsBounded() async throws {
        // A chain deeper than the visit limit: the parent is never found, the item plays alone.
        var tree: [String: [BrowseItem]] = [:]
        for level in 0..<10 {
            let parent = level == 0 ? BrowseItem.rootId : "n\(level)"
            tree[parent] = [BrowseItem(id: "n\(level + 1)", title: "N", browsable: true)]
        }
        tree["n10"] = [TestLibrary.track("deep", seconds: 1), TestLibrary.track("deep2", seconds: 1)]
        let handler = RecordingHandler(library: TestLibrary(tree: tree))
        let limited = SessionCore(handler: handler, clock: ManualClock(), configuration: SessionConfiguration(browseVisitLimit: 5))
        #expect(await limited.findParent(of: "deep") == nil)
        let unlimited = SessionCore(handler: handler, clock: ManualClock())
        #expect(await unlimited.findParent(of: "deep") == "n10")
    }

    @Test(arguments: [
        ("a", SearchFocus?.none, "playFromSearch(a,-,a1,a1,a2,a3,0)"),  // the first playable hit
        ("a", .album, "playFromSearch(a,album,album-b,b1,0)"),  // the first playable album: its tracks
        ("a", .artist, "playFromSearch(a,artist,a1,a1,a2,a3,0)"),  // no artist hit: the first playable
        ("Playlist", .playlist, "playFromSearch(Playlist,playlist,pl-1,a2,b1,0)"),
        ("A2", .song, "playFromSearch(A2,song,a2,a1,a2,a3,1)"),
    ])
    func playFromSearchPlaysTheBestPlayableResult(query: String, focus: SearchFocus?, call: String) async {
        var library = TestLibrary.standard
        library.searchable = true
        library.tree["tab-albums"]?[1].playable = true  // album-b: browsable and playable
        let (core, handler) = Self.makeCore(library: library)
        #expect(await core.perform(.playFromSearch(query: query, focus: focus), from: .local) == .accepted)
        #expect(await handler.calls == [call])
    }

    @Test func playFromSearchWithoutSearchIsNotSupported() async {
        let (core, handler) = Self.makeCore()
        let result = await core.perform(.playFromSearch(query: "a1", focus: nil), from: .local)
        #expect(result.reason?.hasPrefix("notSupported") == true)
        #expect(await handler.calls.isEmpty)
    }

    @Test func anEmptyQueryPlaysSomething() async {
        var library = TestLibrary.standard
        library.searchable = true
        let (core, handler) = Self.makeCore(library: library)
        #expect(await core.perform(.playFromSearch(query: "  ", focus: nil), from: .local) == .accepted)
        #expect(await handler.calls == ["playFromMediaId(a1,a1,a2,a3,0)"])
        #expect(
            await core.perform(.playFromSearch(query: "zzz", focus: nil), from: .local)
                == .rejected(reason: "nothing playable was found for 'zzz'"))
    }

    @Test func playWithNothingQueuedStartsTheFirstPlayableOfTheFirstTab() async {
        let (core, handler) = Self.makeCore()
        #expect(await core.perform(.play, from: .aapKey(car: "hu")) == .accepted)
        #expect(await handler.calls == ["playFromMediaId(a1,a1,a2,a3,0)"])
    }

    @Test func aFirstTabWithNothingPlayableFallsThroughToTheNext() async {
        var library = TestLibrary.standard
        library.tree["tab-albums"] = [BrowseItem(id: "empty-album", title: "Empty", browsable: true)]
        let (core, handler) = Self.makeCore(library: library)
        #expect(await core.perform(.play, from: .local) == .accepted)
        #expect(await handler.calls == ["playFromMediaId(pl-1,a2,b1,0)"])
    }

    @Test func playWithNothingAnywhereIsRejected() async {
        let (core, handler) = Self.makeCore(library: TestLibrary(tree: [BrowseItem.rootId: [TestLibrary.track("not-a-tab", seconds: 1)]]))
        #expect(await core.perform(.play, from: .local) == .rejected(reason: "there is nothing to play"))
        #expect(await handler.calls.isEmpty)
    }

    @Test func playWithNothingQueuedResumesThePersistedSession() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        let clock = ManualClock()
        let first = makeDemoCore(clock: clock, store: SessionStore(directory: directory))
        #expect(await first.perform(.playFromMediaId("b1"), from: .local) == .accepted)
        await clock.advance(by: .seconds(20))
        #expect(await first.perform(.pause, from: .local) == .accepted)
        await first.close()

        // A new process: nothing restored yet, then the car presses play.
        let restartClock = ManualClock()
        let second = makeDemoCore(clock: restartClock, store: SessionStore(directory: directory))
        #expect(await second.snapshot.isIdle)
        #expect(await second.perform(.play, from: .aapKey(car: "hu")) == .accepted)
        let snapshot = await second.snapshot
        #expect(snapshot.mediaItem.item?.id == "b1")
        #expect(snapshot.playbackState.status == .playing)
        #expect(await second.projectedPositionMs(at: restartClock.now) == 20_000)
    }
}
