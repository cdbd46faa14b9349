// Browse on the media channel: GET_CHILDREN, GET_ITEM and SEARCH to browse actions, answers to
// BROWSE_RESULT, error screens per profile, artwork keys, CHILDREN_CHANGED.

import DashportBrowse
import DashportMessages
import DashportSession
import Testing
import DashportClock
import DashportLog
@testable import DashportServices

@Suite("Media channel: browse")
struct MediaChannelBrowseTests {
    static func items(_ ids: [String], artwork: String? = nil) -> [BrowseItem] {
        ids.map { BrowseItem(id: $0, title: $0.uppercased(), artworkUri: artwork, playable: true) }
    }

    @Test func childrenRequestCarriesTheProfileAndTheAnswerEchoesTheRequestId() throws {
        var car = MediaChannelFakeCar()
        let actions = car.send(.getChildren, DashportMedia.GetChildren(requestId: 7, parentId: "tab", page: 2, pageSize: 10))
        let ticket = try MediaChannelFakeCar.ticket(actions)
        #expect(actions == [.browse(ticket, .children(parentId: "tab", page: 2, pageSize: 10, car: car.service.profile.browse))])
        #expect(car.service.inFlightCount == 1)

        let answer = car.answer(ticket, .items(Self.items(["a", "b", "c"]), total: 33, fromCache: true))
        let result = try MediaChannelFakeCar.browseResult(answer)
        #expect(result.requestId == 7)
        let page = try MediaChannelFakeCar.page(result)
        #expect(page.items.map(\.id) == ["a", "b", "c"])
        #expect(page.page == 2 && page.total == 33 && page.hasMore == true)
        #expect(car.service.inFlightCount == 0)
    }

    @Test func theLastPageHasNoMore() throws {
        var car = MediaChannelFakeCar()
        let ticket = try MediaChannelFakeCar.ticket(
            car.send(.getChildren, DashportMedia.GetChildren(requestId: 1, parentId: "tab", page: 3, pageSize: 10)))
        let page = try MediaChannelFakeCar.page(
            MediaChannelFakeCar.browseResult(
                car.answer(ticket, .items(Self.items(["x", "y", "z"]), total: 33, fromCache: false))))
        #expect(page.hasMore == false && page.total == 33 && page.page == 3)
    }

    @Test(
        arguments: [
            (nil, nil, 100), (UInt32(0), nil, 100), (UInt32(20), nil, 20), (UInt32(9999), nil, 500),
            (UInt32(9999), UInt32(40), 40), (nil, UInt32(40), 40), (UInt32(10), UInt32(40), 10),
        ] as [(UInt32?, UInt32?, Int)])
    func pageSizesAreCapped(asked: UInt32?, carLimit: UInt32?, expected: Int) throws {
        var car = MediaChannelFakeCar(profile: DashportMedia.CarProfile(maxItemsPerList: carLimit))
        let actions = car.send(.getChildren, DashportMedia.GetChildren(requestId: 1, parentId: "p", pageSize: asked))
        guard case .browse(_, .children(_, let page, let size, _)) = try #require(actions.first) else {
            Issue.record("no children request")
            return
        }
        #expect(page == 0)
        #expect(size == expected)
    }

    @Test func itemRequestAnswersAPageOfOneWithEveryField() throws {
        var car = MediaChannelFakeCar()
        let actions = car.send(.getItem, DashportMedia.GetItem(requestId: 11, id: "album-1"))
        let ticket = try MediaChannelFakeCar.ticket(actions)
        #expect(actions == [.browse(ticket, .item(id: "album-1", car: car.service.profile.browse))])
        let item = BrowseItem(
            id: "album-1", title: "Album", subtitle: "Someone", artworkUri: "https://img.example/a.jpg",
            browsable: true, playable: true, childStyle: .categoryGrid, group: "2024", explicit: true, completion: 0.5,
            mediaType: .podcastEpisode, artist: "Artist", album: "Album", durationMs: 1234)
        let result = try MediaChannelFakeCar.browseResult(car.answer(ticket, item: item))
        #expect(result.requestId == 11)
        let page = try MediaChannelFakeCar.page(result)
        #expect(page.total == 1 && page.hasMore == false && page.page == 0)
        let expected = DashportMedia.BrowseItem(
            id: "album-1", title: "Album", subtitle: "Someone", artworkKey: car.registry.key(for: "https://img.example/a.jpg"),
            browsable: true, playable: true, childStyle: .categoryGrid, group: "2024", explicit: true, completion: 0.5,
            mediaType: .podcastEpisode, artist: "Artist", album: "Album", durationMs: 1234)
        #expect(page.items == [expected])
        #expect(expected.artworkKey == "key-1")
    }

    @Test func unknownItemIsAnEmptyPage() throws {
        var car = MediaChannelFakeCar()
        let ticket = try MediaChannelFakeCar.ticket(car.send(.getItem, DashportMedia.GetItem(requestId: 3, id: "gone")))
        let page = try MediaChannelFakeCar.page(MediaChannelFakeCar.browseResult(car.answer(ticket, item: nil)))
        #expect(page.items.isEmpty && page.total == 0 && page.hasMore == false)
    }

    @Test func searchRequestBecomesASearch() throws {
        var car = MediaChannelFakeCar()
        let actions = car.send(.search, DashportMedia.Search(requestId: 4, query: "jazz", page: 1, pageSize: 5))
        let ticket = try MediaChannelFakeCar.ticket(actions)
        #expect(actions == [.browse(ticket, .search(query: "jazz", page: 1, pageSize: 5, car: car.service.profile.browse))])
        let page = try MediaChannelFakeCar.page(
            MediaChannelFakeCar.browseResult(
                car.answer(ticket, .items(Self.items(["j6"]), total: 6, fromCache: false))))
        #expect(page.items.map(\.id) == ["j6"] && page.page == 1 && page.hasMore == false)
    }

    @Test func searchWithoutServerSearchIsRejectedNotSupported() throws {
        var car = MediaChannelFakeCar(supportsSearch: false)
        let result = try MediaChannelFakeCar.browseResult(car.send(.search, DashportMedia.Search(requestId: 9, query: "x")))
        #expect(result.requestId == 9)
        guard case .rejected(let rejected) = result.outcome else {
            Issue.record("not rejected")
            return
        }
        #expect(rejected.reason == .notSupported)
        #expect(car.service.inFlightCount == 0)
    }

    @Test func answersMayComeInAnyOrder() throws {
        var car = MediaChannelFakeCar()
        let first = try MediaChannelFakeCar.ticket(car.send(.getChildren, DashportMedia.GetChildren(requestId: 100, parentId: "a")))
        let second = try MediaChannelFakeCar.ticket(car.send(.getItem, DashportMedia.GetItem(requestId: 200, id: "b")))
        let third = try MediaChannelFakeCar.ticket(car.send(.search, DashportMedia.Search(requestId: 300, query: "c")))
        #expect(Set([first, second, third]).count == 3)
        #expect(car.service.pendingTickets == [first, second, third])

        let c = try MediaChannelFakeCar.browseResult(car.answer(third, .items(Self.items(["c1"]), total: 1, fromCache: false)))
        let a = try MediaChannelFakeCar.browseResult(car.answer(first, .items(Self.items(["a1", "a2"]), total: 2, fromCache: false)))
        let b = try MediaChannelFakeCar.browseResult(car.answer(second, item: Self.items(["b"])[0]))
        #expect([c.requestId, a.requestId, b.requestId] == [300, 100, 200])
        #expect(try MediaChannelFakeCar.page(c).items.map(\.id) == ["c1"])
        #expect(try MediaChannelFakeCar.page(a).items.map(\.id) == ["a1", "a2"])
        #expect(try MediaChannelFakeCar.page(b).items.map(\.id) == ["b"])
        #expect(car.service.inFlightCount == 0)
    }

    @Test func itemsCarryArtworkKeysAndNeverTheirURIs() throws {
        var car = MediaChannelFakeCar()
        let uris = ["https://covers.example/very-secret/one.jpg", "file:///music/covers/two.png", "bad://nope"]
        let items = uris.enumerated().map { BrowseItem(id: "i\($0.offset)", title: "T", artworkUri: $0.element, playable: true) }
        let ticket = try MediaChannelFakeCar.ticket(car.send(.getChildren, DashportMedia.GetChildren(requestId: 1, parentId: "p")))
        let actions = car.answer(ticket, .items(items, total: 3, fromCache: false))
        let page = try MediaChannelFakeCar.page(MediaChannelFakeCar.browseResult(actions))
        #expect(page.items.map(\.artworkKey) == [car.registry.key(for: uris[0]), car.registry.key(for: uris[1]), nil])
        #expect(Set(page.items.compactMap(\.artworkKey)) == ["key-1", "key-2"])
        guard case .send(let message) = try #require(actions.first) else { return }
        for uri in uris {
            #expect(!message.body.containsSubsequence(Array(uri.utf8)))
            #expect(!message.body.containsSubsequence(Array("covers".utf8)))
        }
    }

    @Test func onlyKeysHandedInAreSentAndNeverAURIAsItsOwnKey() throws {
        var car = MediaChannelFakeCar()
        let uri = "https://covers.example/x.jpg"
        let items = [
            BrowseItem(id: "a", title: "A", artworkUri: uri, playable: true),
            BrowseItem(id: "b", title: "B", artworkUri: "https://covers.example/unregistered.jpg", playable: true),
        ]
        let first = try MediaChannelFakeCar.ticket(car.send(.getChildren, DashportMedia.GetChildren(requestId: 1, parentId: "p")))
        let page = try MediaChannelFakeCar.page(
            MediaChannelFakeCar.browseResult(
                car.service.browseAnswered(first, .items(items, total: 2, fromCache: false), artworkKeys: [uri: "opaque"])))
        #expect(page.items.map(\.artworkKey) == ["opaque", nil])
        let second = try MediaChannelFakeCar.ticket(car.send(.getItem, DashportMedia.GetItem(requestId: 2, id: "a")))
        let item = try MediaChannelFakeCar.page(
            MediaChannelFakeCar.browseResult(
                car.service.browseAnswered(second, item: items[0], artworkKeys: [uri: uri])))
        #expect(item.items.map(\.artworkKey) == [nil])
        #expect(car.log.contains(.error, "handed in as its own key"))
    }

    @Test func aPageTooLargeForOneMessageIsRejectedUnavailable() throws {
        var car = MediaChannelFakeCar()
        let title = String(repeating: "t", count: 4096)
        let items = (0..<300).map { BrowseItem(id: "i\($0)", title: title, playable: true) }
        let ticket = try MediaChannelFakeCar.ticket(car.send(.getChildren, DashportMedia.GetChildren(requestId: 8, parentId: "p")))
        let result = try MediaChannelFakeCar.browseResult(car.answer(ticket, .items(items, total: 300, fromCache: false)))
        guard case .rejected(let rejected) = result.outcome else {
            Issue.record("not rejected")
            return
        }
        #expect(result.requestId == 8 && rejected.reason == .unavailable)
    }

    @Test func artworkURIsAreListedForRegistration() {
        let items = [
            BrowseItem(id: "a", title: "A", artworkUri: "https://x/a"), BrowseItem(id: "b", title: "B"),
            BrowseItem(id: "c", title: "C", artworkUri: "https://x/a"),
        ]
        #expect(MediaChannelService.artworkURIs(in: .items(items, total: 3, fromCache: false)) == ["https://x/a"])
        #expect(MediaChannelService.artworkURIs(in: .error(BrowseError(code: .notSupported, message: "m"))).isEmpty)
        #expect(MediaChannelService.artworkURIs(in: items[0]) == ["https://x/a"])
        #expect(MediaChannelService.artworkURIs(in: nil as BrowseItem?).isEmpty)
        let state = PlaybackState(customActions: [CustomAction(name: "n", label: "l", iconUri: "file:///i.png")])
        #expect(MediaChannelService.artworkURIs(in: .playbackState(state)) == ["file:///i.png"])
        let item = MediaItem(id: "m", artworkUri: "https://x/m")
        #expect(MediaChannelService.artworkURIs(in: .mediaItem(MediaItemState(item: item))) == ["https://x/m"])
        #expect(MediaChannelService.artworkURIs(in: .queue(QueueState(items: [item, MediaItem(id: "n")]))) == ["https://x/m"])
        #expect(MediaChannelService.artworkURIs(in: .sleepTimerFired).isEmpty)
    }

    @Test func childrenChangedIsPushedOnceOpen() throws {
        var car = MediaChannelFakeCar()
        #expect(car.service.browseNotified(.childrenChanged(parentId: "early")).isEmpty)
        _ = car.service.open(now: .zero)
        #expect(
            try MediaChannelFakeCar.only(car.service.browseNotified(.childrenChanged(parentId: "tab-1")))
                == .childrenChanged(DashportMedia.ChildrenChanged(parentId: "tab-1")))
        #expect(
            try MediaChannelFakeCar.only(car.service.browseNotified(.childrenChanged(parentId: nil)))
                == .childrenChanged(DashportMedia.ChildrenChanged(parentId: nil)))
        #expect(car.service.browseNotified(.report(BrowseReport(code: "browseRootRejected", message: "m"))).isEmpty)
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs in these bytes.
    func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        return (0...(count - needle.count)).contains { start in self[start..<(start + needle.count)].elementsEqual(needle) }
    }
}
