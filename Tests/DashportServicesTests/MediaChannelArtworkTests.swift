// Artwork on the media channel: GET_ARTWORK to an artwork action with the right box, and the
// endpoint's answer (image or error) to ARTWORK_RESULT.

import DashportMessages
import DashportSession
import Testing
import DashportBrowse
@testable import DashportServices

@Suite("Media channel: artwork")
struct MediaChannelArtworkTests {
    /// The box asked of the endpoint for a request box and a profile.
    static func box(
        width: UInt32?, height: UInt32?, profileSizes: [DashportMedia.ArtworkSize] = []
    ) throws -> (key: String, width: Int, height: Int) {
        var car = MediaChannelFakeCar(profile: DashportMedia.CarProfile(artworkSizes: profileSizes))
        let actions = car.send(.getArtwork, DashportMedia.GetArtwork(requestId: 1, key: "key-1", width: width, height: height))
        guard case .artwork(_, let key, let width, let height) = try #require(actions.first), actions.count == 1 else {
            throw MediaChannelTestFailure.wrongMessage
        }
        return (key, width, height)
    }

    @Test func theRequestBoxIsUsedAndCapped() throws {
        #expect(try Self.box(width: 300, height: 200) == ("key-1", 300, 200))
        #expect(try Self.box(width: 0, height: 180) == ("key-1", 180, 180))
        #expect(try Self.box(width: 90, height: nil) == ("key-1", 90, 90))
        #expect(try Self.box(width: 99_999, height: 64) == ("key-1", 2048, 64))
    }

    @Test func withoutABoxTheProfilesFirstSizeOr256() throws {
        let sizes = [DashportMedia.ArtworkSize(width: 480, height: 270), DashportMedia.ArtworkSize(width: 64, height: 64)]
        #expect(try Self.box(width: nil, height: nil, profileSizes: sizes) == ("key-1", 480, 270))
        #expect(try Self.box(width: 0, height: 0) == ("key-1", 256, 256))
    }

    @Test func anImageAnswerCarriesBytesTypeAndSize() throws {
        var car = MediaChannelFakeCar()
        let ticket = try MediaChannelFakeCar.ticket(car.send(.getArtwork, DashportMedia.GetArtwork(requestId: 12, key: "key-7")))
        let image = MediaChannelArtworkImage(bytes: [0xFF, 0xD8, 0xFF, 0xE0], mimeType: "image/jpeg", width: 256, height: 144)
        let result = try MediaChannelFakeCar.artworkResult(car.service.artworkAnswered(ticket, .success(image)))
        #expect(
            result
                == DashportMedia.ArtworkResult(
                    requestId: 12,
                    outcome: .image(
                        DashportMedia.ArtworkImage(data: [0xFF, 0xD8, 0xFF, 0xE0], mimeType: "image/jpeg", width: 256, height: 144))))
        #expect(car.service.inFlightCount == 0)
    }

    @Test(arguments: [
        (MediaChannelArtworkFailure.Code.notFound, DashportMedia.ArtworkError.Code(rawValue: 1)),
        (.fetchFailed, DashportMedia.ArtworkError.Code(rawValue: 2)), (.decodeFailed, DashportMedia.ArtworkError.Code(rawValue: 3)),
        (.busy, DashportMedia.ArtworkError.Code(rawValue: 4)), (.unknown, DashportMedia.ArtworkError.Code(rawValue: 0)),
    ])
    func anErrorAnswerCarriesCodeAndMessage(code: MediaChannelArtworkFailure.Code, wire: DashportMedia.ArtworkError.Code) throws {
        var car = MediaChannelFakeCar()
        let ticket = try MediaChannelFakeCar.ticket(car.send(.getArtwork, DashportMedia.GetArtwork(requestId: 13, key: "key-7")))
        let failure = MediaChannelArtworkFailure(code: code, message: "it went wrong")
        let result = try MediaChannelFakeCar.artworkResult(car.service.artworkAnswered(ticket, .failure(failure)))
        #expect(
            result
                == DashportMedia.ArtworkResult(
                    requestId: 13, outcome: .error(DashportMedia.ArtworkError(code: wire, message: "it went wrong"))))
    }

    @Test func anImageTooLargeForOneMessageIsAnError() throws {
        var car = MediaChannelFakeCar()
        let ticket = try MediaChannelFakeCar.ticket(car.send(.getArtwork, DashportMedia.GetArtwork(requestId: 15, key: "k")))
        let image = MediaChannelArtworkImage(bytes: [UInt8](repeating: 7, count: 1 << 20), mimeType: "image/png", width: 9, height: 9)
        let result = try MediaChannelFakeCar.artworkResult(car.service.artworkAnswered(ticket, .success(image)))
        guard case .error(let error) = result.outcome else {
            Issue.record("an oversized image was sent")
            return
        }
        #expect(result.requestId == 15 && error.code == .unknown)
    }

    @Test func anEmptyKeyIsNotFoundAtOnce() throws {
        var car = MediaChannelFakeCar()
        let result = try MediaChannelFakeCar.artworkResult(car.send(.getArtwork, DashportMedia.GetArtwork(requestId: 14, key: "")))
        guard case .error(let error) = result.outcome else {
            Issue.record("no error")
            return
        }
        #expect(result.requestId == 14 && error.code == .notFound)
        #expect(car.service.inFlightCount == 0)
    }

    @Test func artworkAndBrowseAnswersInterleave() throws {
        var car = MediaChannelFakeCar()
        let art = try MediaChannelFakeCar.ticket(car.send(.getArtwork, DashportMedia.GetArtwork(requestId: 1, key: "k")))
        let list = try MediaChannelFakeCar.ticket(car.send(.getChildren, DashportMedia.GetChildren(requestId: 2, parentId: "p")))
        #expect(try MediaChannelFakeCar.browseResult(car.answer(list, .empty)).requestId == 2)
        #expect(car.answer(art, .empty).isEmpty)
        let image = MediaChannelArtworkImage(bytes: [1], mimeType: "image/png", width: 1, height: 1)
        #expect(try MediaChannelFakeCar.artworkResult(car.service.artworkAnswered(art, .success(image))).requestId == 1)
    }
}
