import DashportTestSupport
import Foundation
import Synchronization
import Testing
import DashportArtwork
import DashportMessages
@testable import DashportServer

/// Every cover of the demo library reaches a car at the size it asked for.
@Suite("Demo library covers over TCP", .serialized)
struct DemoCoversTests {
    @Test func everyCoverOfTheDemoLibraryArrivesAtTheRequestedSize() async throws {
        let catalog = try DemoLibrary.catalogPath()
        let cover = URL(fileURLWithPath: catalog).deletingLastPathComponent().appendingPathComponent("covers/night-drive.jpg").path
        let fetcher = OfflineCoverFetcher(source: cover)
        try await TestServer.with(artworkFetcher: fetcher) { server in
            let car = try await TestCar.connect(to: server.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
            try await car.waitUntil("server hello") { $0.messages(on: 16).contains { $0.id == 0x8001 } }
            let hello = try DashportMedia.ServerHello(
                serializedBytes: try #require(await car.messages(on: 16).first { $0.id == 0x8001 }).body)

            // Walk the whole tree through the media channel, collecting every artwork key (the locked
            // shows open to error screens, which have no covers).
            let walker = ErrorScreensOverTCPTests()
            var keys: Set<String> = []
            var queue = [hello.rootId]
            var requestId: UInt32 = 100
            var visited: Set<String> = []
            while let parent = queue.popLast() {
                guard visited.insert(parent).inserted else { continue }
                requestId += 1
                let outcome = try await walker.browse(car, of: parent, requestId: requestId)
                guard case .items(let page) = outcome else {
                    #expect(parent.hasPrefix("locked-"), "\(parent) answered \(String(describing: outcome))")
                    continue
                }
                for item in page.items {
                    if let key = item.artworkKey { keys.insert(key) }
                    if item.browsable { queue.append(item.id) }
                }
            }
            #expect(keys.count >= 6)

            for (index, key) in keys.sorted().enumerated() {
                let id = UInt32(1000 + index)
                let get = DashportMedia.GetArtwork(requestId: id, key: key, width: 200, height: 200)
                await car.sendUnchecked(channel: 16, messageId: 0x8010, body: get.serializedBytes())
                try await car.waitUntil("cover \(key)") { car in
                    car.messages(on: 16).contains {
                        $0.id == 0x8011 && (try? DashportMedia.ArtworkResult(serializedBytes: $0.body))?.requestId == id
                    }
                }
                let answer = try #require(
                    await car.messages(on: 16).lazy.filter { $0.id == 0x8011 }
                        .compactMap { try? DashportMedia.ArtworkResult(serializedBytes: $0.body) }.first { $0.requestId == id })
                guard case .image(let image) = answer.outcome else {
                    Issue.record("cover \(key) not served: \(String(describing: answer.outcome))")
                    continue
                }
                #expect(image.width == 200 && image.height == 200, "covers are square 600 px images, so 200×200")
                let encoded =
                    image.data.starts(with: [0xFF, 0xD8])
                    ? "image/jpeg"
                    : image.data.starts(with: [0x89, 0x50, 0x4E, 0x47]) ? "image/png" : "unknown"
                #expect(encoded == image.mimeType, "cover \(key) is \(image.mimeType) and its bytes agree")
            }
            // The https covers were each downloaded once, however many items share them.
            let downloads = fetcher.asked
            #expect(!downloads.isEmpty)
            #expect(Set(downloads).count == downloads.count)
        }
    }
}
