import DashportArtwork
import DashportBrowse
import DashportMessages
import DashportSession
import DashportTestSupport
import Foundation
import Testing
@testable import DashportServer

/// Issue 21, item 4, over real TCP: on PLAY and on NEXT a stock AAP car gets the new track's
/// MEDIA_PLAYBACK_METADATA before the MEDIA_PLAYBACK_STATUS that starts it, and a cached cover in
/// that first metadata (so no second metadata pops the cover in). The order follows events (the
/// cache's answer), so it holds however loaded the machine is.
@Suite("Metadata before status over TCP", .serialized)
struct MetadataBeforeStatusOverTCPTests {
    static let statusChannel: UInt8 = 13

    /// What the car got on the playback status channel from message `from` on, in order:
    /// "status <state>" or "metadata <song> [art]".
    ///
    /// `droppingTicksBefore`: leave out the statuses of an earlier track's periodic tick (the
    /// service sends one a second, projected from the anchor, so one can fall between the count
    /// taken before a command and the command itself on a loaded machine): a status more than
    /// 0 s into its track that comes before the first metadata.
    static func wire(_ car: isolated TestCar, from: Int, droppingTicksBefore: Bool = false) -> [String] {
        var metadataSeen = false
        return car.messages(on: statusChannel).dropFirst(from).compactMap { message in
            if message.id == 0x8001, let status = try? AAP.MediaPlaybackStatus(serializedBytes: message.body) {
                if droppingTicksBefore, !metadataSeen, (status.playbackSeconds ?? 0) > 0 { return nil }
                return "status " + (status.state.map { "\($0)" } ?? "-")
            }
            if message.id == 0x8003 { metadataSeen = true }
            if message.id == 0x8003, let metadata = try? AAP.MediaPlaybackMetadata(serializedBytes: message.body) {
                return "metadata " + (metadata.song ?? "-") + (metadata.albumArt.map { $0.isEmpty ? "" : " art" } ?? "")
            }
            return nil
        }
    }

    @Test func playAndNextSendTheMetadataWithTheCachedCoverBeforeTheStatus() async throws {
        try await TestServer.with { server in
            // The album's cover is in the cache at the car's size before anything plays.
            let catalog = try CatalogProvider(contentsOf: try DemoLibrary.catalogPath())
            let uri = try #require(try await catalog.item(id: "nl-1")?.artworkUri)
            let artwork = server.server.core.artwork
            let key = try #require(await artwork.register(uri))
            _ = try await artwork.image(for: key, width: 256, height: 256)

            let car = try await TestCar.connect(to: server.server.address)
            try await car.waitUntil("the first status") { $0.messages(on: Self.statusChannel).contains { $0.id == 0x8001 } }
            let session = server.server.core.session

            let beforePlay = await car.messages(on: Self.statusChannel).count
            #expect(await session.perform(.playFromMediaId("nl-1"), from: .local) == .accepted)
            try await car.waitUntil("PLAYING") { Self.wire($0, from: beforePlay).contains("status playing") }
            let play = await Self.wire(car, from: beforePlay)
            #expect(play.first == "metadata First Light art", "\(play)")
            #expect(play.filter { $0.hasPrefix("metadata") } == ["metadata First Light art"], "one metadata: \(play)")

            let beforeNext = await car.messages(on: Self.statusChannel).count
            #expect(await session.perform(.skipToNext, from: .local) == .accepted)
            try await car.waitUntil("the next track's status") { car in
                let sent = Self.wire(car, from: beforeNext, droppingTicksBefore: true)
                return sent.contains { $0.hasPrefix("status") } && sent.contains { $0.hasPrefix("metadata") }
            }
            let next = await Self.wire(car, from: beforeNext, droppingTicksBefore: true)
            #expect(next.first == "metadata Polar Drift art", "\(next)")
            #expect(next.filter { $0.hasPrefix("metadata") } == ["metadata Polar Drift art"], "one metadata: \(next)")
            await car.abort()
        }
    }
}
