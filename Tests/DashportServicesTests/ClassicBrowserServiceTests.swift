// Tests/DashportServicesTests/ClassicBrowserServiceTests.swift - each node kind, and paging, over a real BrowseCore.

import DashportBrowse
import DashportMessages
import DashportSession
import Testing
@testable import DashportServices

@Suite struct ClassicBrowserServiceTests {
    /// The root of the demo catalog is its four tabs as sources; the fifth and the playable-only
    /// root entry are dropped by the core's rules.
    @Test func rootOfTheDemoCatalogListsItsTabs() async throws {
        var hu = ClassicFakeHeadUnit(provider: try CatalogProvider(contentsOf: ClassicFixtures.demoCatalog))
        let root = try #require(try await hu.node("/").root)
        #expect(root.path == "/")
        #expect(root.mediaSources.map(\.name) == ["Recent", "Albums", "Artists", "Podcasts"])
        #expect(root.mediaSources.map(\.path) == ["/src/tab-recent", "/src/tab-albums", "/src/tab-artists", "/src/tab-podcasts"])
        #expect(root.mediaSources.allSatisfy { $0.albumArt == nil })
        #expect(hu.fetchedArt.isEmpty)
        #expect(hu.service.inFlightCount == 0)
    }

    /// A tab opens as a source node: the tab itself, then its children as lists.
    @Test func sourceNodeMapsChildrenToLists() async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard)
        let node = try #require(try await hu.node("/src/music", art: false).source)
        #expect(node.source == AAP.MediaSource(path: "/src/music", name: "Music"))
        #expect(node.start == 0)
        #expect(node.total == 4)
        #expect(
            node.lists == [
                AAP.MediaList(path: "/list/album-a", type: .album, name: "Album A"),
                AAP.MediaList(path: "/list/artist-x", type: .artist, name: "Artist X"),
                AAP.MediaList(path: "/single/track-solo", type: .unknown, name: "Solo"),
                AAP.MediaList(path: "/single/radio-1", type: .station, name: "Coast FM"),
            ])
    }

    /// A list node carries the list and its songs, each with a song path and its metadata.
    @Test func listNodeCarriesSongs() async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard)
        let node = try #require(try await hu.node("/list/album-a", art: false).list)
        #expect(node.list == AAP.MediaList(path: "/list/album-a", type: .album, name: "Album A"))
        #expect(node.start == 0)
        #expect(node.total == 3)
        #expect(node.songs == (1...3).map { AAP.MediaSong(path: "/song/t-\($0)", name: "Track \($0)", artist: "Band", album: "Album A") })
    }

    /// Under a list, a browsable-only child keeps a list path (it can still be opened) and a
    /// playable album gets a song path.
    @Test func listChildrenThatAreListsKeepTheirPaths() async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard)
        let node = try #require(try await hu.node("/list/artist-x", art: false).list)
        #expect(node.list.type == .artist)
        #expect(node.songs.map(\.path) == ["/song/album-a", "/list/sub"])
        let sub = try #require(try await hu.node("/list/sub", art: false).list)
        #expect(sub.songs.map(\.path) == ["/song/track-solo"])
    }

    /// A playable-only child of a source opens as a list of that one song.
    @Test func singleOpensAsAOneSongList() async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard)
        let node = try #require(try await hu.node("/single/track-solo", art: false).list)
        #expect(node.list == AAP.MediaList(path: "/single/track-solo", type: .unknown, name: "Solo"))
        #expect(node.total == 1)
        #expect(node.songs == [AAP.MediaSong(path: "/song/track-solo", name: "Solo", artist: "Busker")])
        let past = try #require(try await hu.node("/single/track-solo", start: 1, art: false).list)
        #expect(past.total == 1)
        #expect(past.start == 1)
        #expect(past.songs.isEmpty)
    }

    /// A song node carries the song, its cover and its duration in whole seconds.
    @Test func songNodeCarriesDurationAndCover() async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard)
        let node = try #require(try await hu.node("/song/t-2").song)
        #expect(node.song == AAP.MediaSong(path: "/song/t-2", name: "Track 2", artist: "Band", album: "Album A"))
        #expect(node.durationSeconds == 251)
        #expect(node.albumArt == classicArt("https://art/a"))
        #expect(hu.fetchedArt == ["https://art/a"])
        let solo = try #require(try await hu.node("/song/track-solo").song)
        #expect(solo.durationSeconds == 61)
        #expect(solo.song.artist == "Busker")
    }

    /// An item the core does not know is an empty node of the kind asked for, never an error.
    @Test func unknownIdsAreEmptyNodes() async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard)
        let song = try #require(try await hu.node("/song/nope").song)
        #expect(song == AAP.MediaSongNode(song: AAP.MediaSong(path: "/song/nope")))
        let list = try #require(try await hu.node("/list/nope").list)
        #expect(list.total == 0)
        #expect(list.songs.isEmpty)
        let source = try #require(try await hu.node("/src/nope").source)
        #expect(source.source == AAP.MediaSource(path: "/src/nope", name: ""))
        #expect(source.total == 0)
        #expect(hu.problems.isEmpty)
    }

    /// Pages of 50 from `start`, with the whole list's total; a start past the end is an empty page.
    @Test(arguments: [(0, 0..<50), (50, 50..<100), (100, 100..<120), (120, 120..<120), (500, 120..<120), (-7, 0..<50)])
    func sourcePagesByStart(start: Int32, expected: Range<Int>) async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard)
        let node = try #require(try await hu.node("/src/big", start: start, art: false).source)
        #expect(node.start == max(0, start))
        #expect(node.total == 120)
        #expect(node.lists.map(\.name) == expected.map { "Album \($0)" })
    }

    /// A start between pages is served from the two core pages around it, in one node.
    @Test func unalignedStartSpansTwoCorePages() async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard)
        let node = try #require(try await hu.node("/src/big", start: 30, art: false).source)
        #expect(node.lists.map(\.name) == (30..<80).map { "Album \($0)" })
        let pages = hu.actions.compactMap { action -> Int? in
            if case .browse(_, "big", let page, 50, _) = action { page } else { nil }
        }
        #expect(pages == [0, 1])
    }

    /// A head unit that pages by adding what it got to start sees every child exactly once.
    @Test func pagingWithAConfiguredPageSizeCoversTheWholeList() async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard, configuration: .init(pageSize: 7))
        var seen: [String] = []
        var start: Int32 = 3
        for _ in 0..<30 {  // 117 children in pages of 7 take 17 requests and one more for the end
            let node = try #require(try await hu.node("/src/big", start: start, art: false).source)
            #expect(node.total == 120)
            #expect(node.lists.count <= 7)
            if node.lists.isEmpty { break }
            seen += node.lists.compactMap(\.name)
            start += Int32(node.lists.count)
        }
        #expect(seen == (3..<120).map { "Album \($0)" })
    }

    /// The page size is clamped to what the browse core serves in one page.
    @Test func pageSizeIsClamped() {
        #expect(ClassicBrowserService.Configuration(pageSize: 0).pageSize == 1)
        #expect(ClassicBrowserService.Configuration(pageSize: 10_000).pageSize == 500)
        #expect(ClassicBrowserService.Configuration().pageSize == 50)
        var configuration = ClassicBrowserService.Configuration()
        configuration.pageSize = 0
        configuration.maxInFlight = -1
        let service = ClassicBrowserService(channel: 1, car: "c", configuration: configuration)
        #expect(service.configuration.pageSize == 1)
        #expect(service.configuration.maxInFlight == 1)
    }

    /// A provider's error screen cannot be drawn by an AAP classic car: the list is empty.
    @Test func errorScreensBecomeEmptyLists() async throws {
        var library = ClassicLibrary.standard
        library.failing["album-a"] = BrowseError(code: .premiumAccountRequired, message: "Upgrade")
        var hu = ClassicFakeHeadUnit(provider: library)
        let node = try #require(try await hu.node("/list/album-a", art: false).list)
        #expect(node.list.name == "Album A")
        #expect(node.total == 0)
        #expect(node.songs.isEmpty)
    }

    /// ENTER on a song plays it from the list that showed it: `track-solo` is a single under the
    /// `music` source and a song in the `sub` list, and each gives its own parent.
    @Test func enterPlaysASongFromTheListThatShowedIt() async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard)
        func enter(_ path: String) -> [ClassicAction] {
            let body = AAP.MediaBrowserInput(input: AAP.InstrumentClusterInput(action: .enter), path: path).serializedBytes()
            return hu.service.receive(messageId: UInt16(AAP.MediaBrowserMessageId.browseInput.rawValue), body: body, now: hu.now)
        }
        #expect(enter("/song/track-solo") == [.command(.playFromMediaId("track-solo", parentId: nil), ClassicFakeHeadUnit.source)])
        _ = try await hu.node("/list/sub", art: false)
        #expect(enter("/song/track-solo") == [.command(.playFromMediaId("track-solo", parentId: "sub"), ClassicFakeHeadUnit.source)])
        _ = try await hu.node("/src/music", art: false)
        #expect(enter("/single/track-solo") == [.command(.playFromMediaId("track-solo", parentId: "music"), ClassicFakeHeadUnit.source)])
        _ = try await hu.node("/list/album-a", art: false)
        #expect(enter("/song/t-2") == [.command(.playFromMediaId("t-2", parentId: "album-a"), ClassicFakeHeadUnit.source)])
    }
}
