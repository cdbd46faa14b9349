// Checking car requests: the in-flight cap, size caps, malformed bodies, unknown message ids, and
// answers for tickets that are not pending.

import DashportBrowse
import DashportLog
import DashportMessages
import DashportSession
import Testing
@testable import DashportServices

@Suite("Media channel: request checks")
struct MediaChannelRequestTests {
    static let kiB = 1024

    @Test func overTheInFlightCapEveryKindIsBusyAtOnce() throws {
        var car = MediaChannelFakeCar(configuration: MediaChannelConfiguration(maxInFlightRequests: 2))
        let first = try MediaChannelFakeCar.ticket(car.send(.getChildren, DashportMedia.GetChildren(requestId: 1, parentId: "a")))
        _ = try MediaChannelFakeCar.ticket(car.send(.playFromMediaId, DashportMedia.PlayFromMediaId(requestId: 2, mediaId: "m")))

        let browse = try MediaChannelFakeCar.browseResult(car.send(.getItem, DashportMedia.GetItem(requestId: 3, id: "x")))
        #expect(
            browse
                == DashportMedia.BrowseResult(
                    requestId: 3, outcome: .rejected(DashportMedia.RequestRejected(reason: .busy, message: "too many requests in flight"))))
        let command = try MediaChannelFakeCar.commandResult(
            car.send(.playbackCommand, DashportMedia.PlaybackCommand(requestId: 4, command: .play(DashportMedia.Empty()))))
        #expect(command.requestId == 4 && !command.accepted && command.reason == .busy)
        let artwork = try MediaChannelFakeCar.artworkResult(car.send(.getArtwork, DashportMedia.GetArtwork(requestId: 5, key: "k")))
        guard case .error(let error) = artwork.outcome else {
            Issue.record("artwork not refused")
            return
        }
        #expect(artwork.requestId == 5 && error.code == .busy)
        #expect(car.service.inFlightCount == 2)

        _ = car.answer(first, .empty)
        #expect(try MediaChannelFakeCar.ticket(car.send(.getItem, DashportMedia.GetItem(requestId: 6, id: "x"))) != first)
    }

    @Test func theDefaultCapIs32() throws {
        var car = MediaChannelFakeCar()
        for id in 0..<32 {
            _ = try MediaChannelFakeCar.ticket(car.send(.getItem, DashportMedia.GetItem(requestId: UInt32(id), id: "i")))
        }
        let result = try MediaChannelFakeCar.browseResult(car.send(.getItem, DashportMedia.GetItem(requestId: 99, id: "i")))
        guard case .rejected(let rejected) = result.outcome else {
            Issue.record("not busy")
            return
        }
        #expect(rejected.reason == .busy && result.requestId == 99)
    }

    /// Request id 42, then a string field whose length runs past the end.
    static let truncatedWithId: [UInt8] = [0x08, 42, 0x12, 0x05, 0x61]

    @Test func malformedBrowseRequestWithAReadableIdIsRejectedInvalid() throws {
        for id in [DashportMedia.MessageId.getChildren, .getItem, .search] {
            var car = MediaChannelFakeCar()
            let result = try MediaChannelFakeCar.browseResult(car.sendRaw(UInt16(id.rawValue), Self.truncatedWithId))
            guard case .rejected(let rejected) = result.outcome else {
                Issue.record("\(id) not rejected")
                continue
            }
            #expect(result.requestId == 42 && rejected.reason == .invalidRequest)
            #expect(car.service.inFlightCount == 0)
        }
    }

    @Test func malformedCommandsAndArtworkWithAReadableIdAreRefused() throws {
        for id in [DashportMedia.MessageId.playFromMediaId, .playFromSearch, .playbackCommand] {
            var car = MediaChannelFakeCar()
            let result = try MediaChannelFakeCar.commandResult(car.sendRaw(UInt16(id.rawValue), Self.truncatedWithId))
            #expect(result.requestId == 42 && !result.accepted && result.reason == .invalidArgument)
        }
        var car = MediaChannelFakeCar()
        let artwork = try MediaChannelFakeCar.artworkResult(
            car.sendRaw(UInt16(DashportMedia.MessageId.getArtwork.rawValue), Self.truncatedWithId))
        guard case .error(let error) = artwork.outcome else {
            Issue.record("artwork not refused")
            return
        }
        #expect(artwork.requestId == 42 && error.code == .unknown)
    }

    @Test func malformedWithoutARequestIdIsOnlyLogged() {
        var car = MediaChannelFakeCar()
        #expect(car.sendRaw(UInt16(DashportMedia.MessageId.getChildren.rawValue), [0x12, 0x05, 0x61]).isEmpty)
        #expect(car.log.contains(.error, "malformed message without a readable request id"))
        #expect(car.service.inFlightCount == 0)
    }

    @Test func unknownMessageIdsAreLoggedAndIgnored() {
        var car = MediaChannelFakeCar()
        #expect(car.sendRaw(0x9999, [0x08, 0x01]).isEmpty)
        #expect(car.log.contains(.warning, "unknown message id"))
        #expect(car.send(.browseResult, DashportMedia.BrowseResult(requestId: 1)).isEmpty)
        #expect(car.log.contains(.warning, "server-to-car message"))
        #expect(car.service.inFlightCount == 0)
    }

    @Test func idsLongerThanOneKiBAreRejected() throws {
        var car = MediaChannelFakeCar()
        let long = String(repeating: "é", count: Self.kiB / 2 + 1)  // 1026 bytes
        let exact = String(repeating: "a", count: Self.kiB)
        #expect(
            try MediaChannelFakeCar.ticket(car.send(.getChildren, DashportMedia.GetChildren(requestId: 1, parentId: exact))).rawValue > 0)
        for (id, message) in [
            (DashportMedia.MessageId.getChildren, DashportMedia.GetChildren(requestId: 2, parentId: long).serializedBytes()),
            (.getChildren, DashportMedia.GetChildren(requestId: 2, parentId: "").serializedBytes()),
            (.getItem, DashportMedia.GetItem(requestId: 2, id: long).serializedBytes()),
        ] {
            let result = try MediaChannelFakeCar.browseResult(car.sendRaw(UInt16(id.rawValue), message))
            guard case .rejected(let rejected) = result.outcome else {
                Issue.record("\(id) not rejected")
                continue
            }
            #expect(result.requestId == 2 && rejected.reason == .invalidRequest)
        }
        for mediaId in [long, ""] {
            let result = try MediaChannelFakeCar.commandResult(
                car.send(.playFromMediaId, DashportMedia.PlayFromMediaId(requestId: 3, mediaId: mediaId)))
            #expect(result.requestId == 3 && result.reason == .invalidArgument)
        }
        let artwork = try MediaChannelFakeCar.artworkResult(car.send(.getArtwork, DashportMedia.GetArtwork(requestId: 4, key: long)))
        #expect(artwork.outcome == .error(DashportMedia.ArtworkError(code: .notFound, message: "no artwork was handed out under that key")))
        #expect(car.service.inFlightCount == 1)
    }

    @Test func queriesLongerThanOneKiBAreRejected() throws {
        var car = MediaChannelFakeCar()
        let long = String(repeating: "q", count: Self.kiB + 1)
        let search = try MediaChannelFakeCar.browseResult(car.send(.search, DashportMedia.Search(requestId: 5, query: long)))
        guard case .rejected(let rejected) = search.outcome else {
            Issue.record("search not rejected")
            return
        }
        #expect(rejected.reason == .invalidRequest)
        let play = try MediaChannelFakeCar.commandResult(car.send(.playFromSearch, DashportMedia.PlayFromSearch(requestId: 6, query: long)))
        #expect(play.requestId == 6 && play.reason == .invalidArgument)
        #expect(car.service.inFlightCount == 0)
    }

    @Test func answersForTicketsNotPendingAreIgnored() throws {
        var car = MediaChannelFakeCar()
        let ticket = try MediaChannelFakeCar.ticket(car.send(.getItem, DashportMedia.GetItem(requestId: 1, id: "x")))
        #expect(car.service.commandAnswered(ticket, .accepted).isEmpty)
        #expect(car.log.contains(.error, "ticket of another kind"))
        #expect(car.service.inFlightCount == 1)
        #expect(try MediaChannelFakeCar.browseResult(car.answer(ticket, item: nil)).requestId == 1)
        #expect(car.answer(ticket, item: nil).isEmpty)
        #expect(car.service.artworkAnswered(MediaChannelTicket(rawValue: 999), .failure(.init(message: "x"))).isEmpty)
        #expect(car.log.contains(.warning, "not pending"))
    }

    @Test func repeatedRequestIdsGetTheirOwnTickets() throws {
        var car = MediaChannelFakeCar()
        let a = try MediaChannelFakeCar.ticket(car.send(.getItem, DashportMedia.GetItem(requestId: 0, id: "x")))
        let b = try MediaChannelFakeCar.ticket(car.send(.getItem, DashportMedia.GetItem(requestId: 0, id: "y")))
        #expect(a != b)
        #expect(try MediaChannelFakeCar.browseResult(car.answer(b, item: nil)).requestId == 0)
        #expect(car.service.pendingTickets == [a])
    }

    @Test func requestIdScanFindsFieldOneBeforeTheDamage() {
        // fixed64 field 3, length-delimited field 2, fixed32 field 4, then field 1 = 300.
        let body: [UInt8] = [0x19, 1, 2, 3, 4, 5, 6, 7, 8, 0x12, 0x01, 0x61, 0x25, 1, 2, 3, 4, 0x08, 0xAC, 0x02, 0x12, 0x7F]
        #expect(MediaChannelWireScan.requestId(in: body) == 300)
        #expect(MediaChannelWireScan.requestId(in: [0x08, 1, 0x08, 2]) == 2)
        #expect(MediaChannelWireScan.requestId(in: [0x0A, 0x01, 0x01]) == nil)  // field 1 not a varint
        #expect(MediaChannelWireScan.requestId(in: [0x08, 0x80, 0x80, 0x80, 0x80, 0x10]) == nil)  // > UInt32
        #expect(MediaChannelWireScan.requestId(in: [0x08]) == nil)
        #expect(MediaChannelWireScan.requestId(in: []) == nil)
        #expect(MediaChannelWireScan.requestId(in: [0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]) == nil)
    }
}
