// A page encoded once (kept with a memoised answer) answers with exactly the bytes the service
// builds from the answer itself (issue 22, item 2).

import DashportBrowse
import DashportMessages
import Testing
@testable import DashportServices

@Suite("Media channel: encoded pages")
struct MediaChannelEncodedPageTests {
    static let uri = "https://img.example/cover.jpg"

    static func answer(_ count: Int, total: Int) -> BrowseAnswer {
        let items = (0..<count).map { index in
            BrowseItem(
                id: "album-\(index)", title: "Album \(index)", subtitle: "Someone", artworkUri: index.isMultiple(of: 2) ? uri : nil,
                browsable: true, playable: index > 0, childStyle: .grid, mediaType: .album, durationMs: Int64(index) * 1000)
        }
        return .items(items, total: total, fromCache: false)
    }

    /// The body of the one BROWSE_RESULT among `actions`.
    static func body(_ actions: [MediaChannelAction]) throws -> [UInt8] {
        try #require(actions.count == 1)
        guard case .send(let message) = try #require(actions.first) else { throw MediaChannelTestFailure.unexpectedSend }
        #expect(message.messageId == UInt16(DashportMedia.MessageId.browseResult.rawValue))
        return message.body
    }

    /// Request ids from one to five varint bytes, a first, a middle and a last page, an empty page.
    @Test(
        arguments: [
            (UInt32(0), 0, 6, 6), (UInt32(127), 1, 10, 33), (UInt32(128), 3, 10, 33), (UInt32(300_000), 0, 50, 0),
            (UInt32.max, 2, 4, 100),
        ] as [(UInt32, Int, Int, Int)])
    func theEncodedPageGivesTheSameBytes(requestId: UInt32, page: Int, pageSize: Int, total: Int) throws {
        let answer = Self.answer(min(pageSize, max(total - page * pageSize, 0)), total: total)
        let request = DashportMedia.GetChildren(requestId: requestId, parentId: "tab", page: UInt32(page), pageSize: UInt32(pageSize))
        var built = MediaChannelFakeCar()
        var memoised = MediaChannelFakeCar()
        let keys = built.registry.keys(for: MediaChannelService.artworkURIs(in: answer))
        let encoded = try #require(MediaChannelService.encodedItemPage(answer, page: page, pageSize: pageSize, artworkKeys: keys))

        let first = try MediaChannelFakeCar.ticket(built.send(.getChildren, request))
        let second = try MediaChannelFakeCar.ticket(memoised.send(.getChildren, request))
        let expected = try Self.body(built.service.browseAnswered(first, answer, artworkKeys: keys))
        let fromMemo = try Self.body(memoised.service.browseAnswered(second, answer, artworkKeys: keys, encoded: encoded))
        #expect(fromMemo == expected)
        #expect(memoised.service.inFlightCount == 0)
        let result = try DashportMedia.BrowseResult(serializedBytes: fromMemo)
        #expect(result.requestId == requestId)
        #expect(try MediaChannelFakeCar.page(result).items.first?.artworkKey == (answer.items.isEmpty ? nil : "key-1"))
    }

    /// A page encoded for another page or page size is not used: the answer is built from the items.
    @Test func aPageEncodedForAnotherRequestIsNotUsed() throws {
        var car = MediaChannelFakeCar()
        let answer = Self.answer(3, total: 3)
        let other = try #require(MediaChannelService.encodedItemPage(Self.answer(1, total: 1), page: 1, pageSize: 10, artworkKeys: [:]))
        let ticket = try MediaChannelFakeCar.ticket(
            car.send(.getChildren, DashportMedia.GetChildren(requestId: 5, parentId: "tab", page: 0, pageSize: 10)))
        let page = try MediaChannelFakeCar.page(
            MediaChannelFakeCar.browseResult(car.service.browseAnswered(ticket, answer, artworkKeys: [:], encoded: other)))
        #expect(page.items.map(\.id) == ["album-0", "album-1", "album-2"] && page.page == 0)
        let screen = BrowseAnswer.error(BrowseError(code: .authenticationExpired, message: "sign in again"))
        #expect(MediaChannelService.encodedItemPage(screen, page: 0, pageSize: 10, artworkKeys: [:]) == nil)
    }
}
