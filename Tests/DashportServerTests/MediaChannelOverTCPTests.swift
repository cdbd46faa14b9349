import DashportTestSupport
import Foundation
import Testing
import DashportHeadUnit
import DashportLink
import DashportMessages
import DashportSession
import DashportLog
@testable import DashportServer

/// The Dashport media channel over real TCP: browse, play, state pushes and covers, with two
/// Dashport cars and a stock AAP car sharing one session.
@Suite("Dashport media channel over TCP", .serialized)
struct MediaChannelOverTCPTests {
    static let mediaChannel: UInt8 = 16

    /// A car whose `dashport.media` entry carries a full-rendering profile.
    static func dashportCar(maxTabs: UInt32 = 4) -> HeadUnitConfiguration {
        var configuration = HeadUnitConfiguration()
        let profile = DashportMedia.CarProfile(
            maxRootTabs: maxTabs, artworkSizes: [DashportMedia.ArtworkSize(width: 128, height: 128)],
            errorScreenSupport: .full, supportsSearch: true)
        configuration.car.services = configuration.car.services.map { service in
            guard case .vendorExtension(let name, _) = service.kind else { return service }
            return CarService(channel: service.channel, kind: .vendorExtension(name: name, data: profile.serializedBytes()))
        }
        return configuration
    }

    func children(_ car: TestCar, of parent: String, requestId: UInt32) async throws -> [DashportMedia.BrowseItem] {
        let request = DashportMedia.GetChildren(requestId: requestId, parentId: parent, page: 0, pageSize: 50)
        await car.sendUnchecked(channel: Self.mediaChannel, messageId: 0x8003, body: request.serializedBytes())
        try await car.waitUntil("children of \(parent)") { car in
            car.messages(on: Self.mediaChannel).contains {
                $0.id == 0x8006 && (try? DashportMedia.BrowseResult(serializedBytes: $0.body))?.requestId == requestId
            }
        }
        let result = try #require(
            await car.messages(on: Self.mediaChannel).lazy
                .filter { $0.id == 0x8006 }
                .compactMap { try? DashportMedia.BrowseResult(serializedBytes: $0.body) }
                .first { $0.requestId == requestId })
        guard case .items(let page) = result.outcome else {
            Issue.record("expected items, got \(String(describing: result.outcome))")
            return []
        }
        return page.items
    }

    func lastState(_ car: TestCar) async -> DashportMedia.PlaybackState? {
        await car.messages(on: Self.mediaChannel).last { $0.id == 0x800C }
            .flatMap { try? DashportMedia.PlaybackState(serializedBytes: $0.body) }
    }

    func lastItem(_ car: TestCar) async -> DashportMedia.MediaItem? {
        await car.messages(on: Self.mediaChannel).last { $0.id == 0x800D }
            .flatMap { try? DashportMedia.MediaItemState(serializedBytes: $0.body) }?.item
    }

    /// `max_root_tabs = 0` is the schema's "unset": the car gets the default 4 tabs (issue 11: it got one).
    @Test func aProfileWithZeroTabsGetsTheDefaultFour() async throws {
        try await TestServer.with { server in
            let car = try await TestCar.connect(to: server.server.address, configuration: Self.dashportCar(maxTabs: 0))
            try await car.waitUntil("server hello") { $0.messages(on: Self.mediaChannel).contains { $0.id == 0x8001 } }
            let helloBytes = try #require(await car.messages(on: Self.mediaChannel).first { $0.id == 0x8001 })
            let hello = try DashportMedia.ServerHello(serializedBytes: helloBytes.body)
            let tabs = try await children(car, of: hello.rootId, requestId: 1)
            #expect(tabs.count == 4)
            #expect(!server.log.records.contains { $0.message.contains("over the cap of 1 tabs") })
            await car.abort()
        }
    }

    @Test func twoCarsBrowsePlayAndSeeTheSameStateWithCovers() async throws {
        try await TestServer.with { server in
            let first = try await TestCar.connect(to: server.server.address, configuration: Self.dashportCar())
            let second = try await TestCar.connect(to: server.server.address, configuration: Self.dashportCar(maxTabs: 3))
            for car in [first, second] {
                try await car.waitUntil("server hello") { $0.messages(on: Self.mediaChannel).contains { $0.id == 0x8001 } }
            }
            let helloBytes = try #require(await first.messages(on: Self.mediaChannel).first { $0.id == 0x8001 })
            let hello = try DashportMedia.ServerHello(serializedBytes: helloBytes.body)
            #expect(hello.supportsSearch)

            let tabs = try await children(first, of: hello.rootId, requestId: 1)
            #expect(tabs.count == 4)
            #expect(tabs.allSatisfy { $0.browsable })
            let secondTabs = try await children(second, of: hello.rootId, requestId: 1)
            #expect(secondTabs.count == 3)

            // Open the albums tab and play the first album's first track.
            let albumsTab = try #require(tabs.first { $0.title.lowercased().contains("album") })
            let albums = try await children(first, of: albumsTab.id, requestId: 2)
            let album = try #require(albums.first)
            let tracks = try await children(first, of: album.id, requestId: 3)
            let track = try #require(tracks.first { $0.playable })
            #expect(tracks.allSatisfy { $0.artworkKey.map { !$0.contains("://") } ?? true })

            let play = DashportMedia.PlayFromMediaId(requestId: 4, mediaId: track.id)
            await first.sendUnchecked(channel: Self.mediaChannel, messageId: 0x8008, body: play.serializedBytes())
            for car in [first, second] {
                try await car.waitUntil("playing \(track.title)") { car in
                    let messages = car.messages(on: Self.mediaChannel)
                    let playing =
                        messages.last { $0.id == 0x800C }.flatMap { try? DashportMedia.PlaybackState(serializedBytes: $0.body) }?.status
                        == .playing
                    let item = messages.last { $0.id == 0x800D }.flatMap { try? DashportMedia.MediaItemState(serializedBytes: $0.body) }?
                        .item?.id
                    return playing && item == track.id
                }
            }
            // The answer and the state pushes travel separately: wait for the answer too.
            try await first.waitUntil("the answer to request 4") { car in
                car.messages(on: Self.mediaChannel).contains { $0.id == 0x800B }
            }
            let result = try #require(
                await first.messages(on: Self.mediaChannel).lazy
                    .filter { $0.id == 0x800B }.compactMap { try? DashportMedia.CommandResult(serializedBytes: $0.body) }
                    .first { $0.requestId == 4 })
            #expect(result.accepted)
            #expect(await lastItem(first) == lastItem(second))
            #expect(await lastState(first)?.queueIndex == lastState(second)?.queueIndex)

            // The second car pauses; both see it.
            let pause = DashportMedia.PlaybackCommand(requestId: 2, command: .pause(DashportMedia.Empty()))
            await second.sendUnchecked(channel: Self.mediaChannel, messageId: 0x800A, body: pause.serializedBytes())
            for car in [first, second] {
                try await car.waitUntil("paused") { car in
                    car.messages(on: Self.mediaChannel).last { $0.id == 0x800C }
                        .flatMap { try? DashportMedia.PlaybackState(serializedBytes: $0.body) }?.status == .paused
                }
            }

            // The playing item's cover at the car's size.
            let key = try #require(await lastItem(first)?.artworkKey)
            let get = DashportMedia.GetArtwork(requestId: 9, key: key, width: 128, height: 128)
            await first.sendUnchecked(channel: Self.mediaChannel, messageId: 0x8010, body: get.serializedBytes())
            try await first.waitUntil("cover") { $0.messages(on: Self.mediaChannel).contains { $0.id == 0x8011 } }
            let art = try #require(await first.messages(on: Self.mediaChannel).last { $0.id == 0x8011 })
            let artwork = try DashportMedia.ArtworkResult(serializedBytes: art.body)
            guard case .image(let image) = artwork.outcome else {
                Issue.record("expected an image, got \(String(describing: artwork.outcome))")
                return
            }
            #expect(max(image.width, image.height) == 128)
            #expect(image.mimeType == "image/jpeg" || image.mimeType == "image/png")
            #expect(!image.data.isEmpty)
        }
    }

    @Test func anUnregisteredArtworkKeyIsRefused() async throws {
        try await TestServer.with { server in
            let car = try await TestCar.connect(to: server.server.address, configuration: Self.dashportCar())
            try await car.waitUntil("server hello") { $0.messages(on: Self.mediaChannel).contains { $0.id == 0x8001 } }
            let get = DashportMedia.GetArtwork(requestId: 1, key: "file:///etc/passwd", width: 64, height: 64)
            await car.sendUnchecked(channel: Self.mediaChannel, messageId: 0x8010, body: get.serializedBytes())
            try await car.waitUntil("artwork answer") { $0.messages(on: Self.mediaChannel).contains { $0.id == 0x8011 } }
            let art = try #require(await car.messages(on: Self.mediaChannel).last { $0.id == 0x8011 })
            guard case .error = try DashportMedia.ArtworkResult(serializedBytes: art.body).outcome else {
                Issue.record("an unregistered key must not be served")
                return
            }
        }
    }

    @Test func keysFromAStockCarAndCommandsFromADashportCarInterleave() async throws {
        try await TestServer.with { server in
            let dashport = try await TestCar.connect(to: server.server.address, configuration: Self.dashportCar())
            var stockConfiguration = HeadUnitConfiguration()
            stockConfiguration.car.services.removeAll { if case .vendorExtension = $0.kind { true } else { false } }
            let stock = try await TestCar.connect(to: server.server.address, configuration: stockConfiguration)
            try await dashport.waitUntil("server hello") { $0.messages(on: Self.mediaChannel).contains { $0.id == 0x8001 } }
            try await stock.waitUntil("input channel open") { $0.openedChannels.contains(8) }

            func press(_ keycode: UInt32) async {
                for down in [true, false] {
                    let report = AAP.InputReport(
                        timestamp: 1, keyEvent: AAP.KeyEvent(keys: [AAP.KeyEvent.Key(keycode: keycode, down: down, metastate: 0)]))
                    await stock.sendUnchecked(channel: 8, messageId: 0x8001, body: report.serializedBytes())
                }
            }
            func command(_ id: UInt32, _ command: DashportMedia.PlaybackCommand.Command) async {
                let body = DashportMedia.PlaybackCommand(requestId: id, command: command).serializedBytes()
                await dashport.sendUnchecked(channel: Self.mediaChannel, messageId: 0x800A, body: body)
            }
            func waitFor(_ status: DashportMedia.PlaybackStatus, item: String? = nil) async throws {
                try await dashport.waitUntil("\(status) \(item ?? "")") { car in
                    let messages = car.messages(on: Self.mediaChannel)
                    let state = messages.last { $0.id == 0x800C }.flatMap { try? DashportMedia.PlaybackState(serializedBytes: $0.body) }
                    let current = messages.last { $0.id == 0x800D }.flatMap { try? DashportMedia.MediaItemState(serializedBytes: $0.body) }?
                        .item?.id
                    return state?.status == status && (item == nil || current == item)
                }
            }

            // The stock car's PLAY starts something; the Dashport car skips; the stock car pauses;
            // the Dashport car plays again and the stock car skips back: one session, in order.
            await press(126)
            try await waitFor(.playing)
            let first = try #require(await lastItem(dashport)?.id)
            await command(1, .skipToNext(DashportMedia.Empty()))
            try await dashport.waitUntil("a new item") { car in
                car.messages(on: Self.mediaChannel).last { $0.id == 0x800D }
                    .flatMap { try? DashportMedia.MediaItemState(serializedBytes: $0.body) }?.item?.id != first
            }
            await press(127)
            try await waitFor(.paused)
            await command(2, .play(DashportMedia.Empty()))
            try await waitFor(.playing)
            await press(88)
            try await waitFor(.playing, item: first)
            #expect(await server.server.core.session.mediaItem.item?.id == first)
            // The stock car saw the same story on its playback status channel.
            let stockSongs = await stock.messages(on: 13).filter { $0.id == 0x8003 }
                .compactMap { try? AAP.MediaPlaybackMetadata(serializedBytes: $0.body).song }
            #expect(Set(stockSongs).count >= 2)
        }
    }

    @Test func fiftyCarsBrowsingAtOnceGetTheSameAnswers() async throws {
        try await TestServer.with { server in
            let cars = try await withThrowingTaskGroup(of: TestCar.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await TestCar.connect(to: server.server.address, configuration: Self.dashportCar()) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let answers = try await withThrowingTaskGroup(of: [String].self) { group in
                for car in cars {
                    group.addTask {
                        try await car.waitUntil("server hello", timeout: .seconds(60)) {
                            $0.messages(on: Self.mediaChannel).contains { $0.id == 0x8001 }
                        }
                        var seen: [String] = []
                        let tabs = try await self.children(car, of: "__root__", requestId: 1)
                        seen += tabs.map(\.id)
                        for (index, tab) in tabs.enumerated() {
                            seen += try await self.children(car, of: tab.id, requestId: UInt32(10 + index)).map {
                                "\($0.id)|\($0.title)|\($0.artworkKey ?? "-")"
                            }
                        }
                        return seen
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.count == 50)
            #expect(Set(answers).count == 1, "every car saw the same tabs, children and artwork keys")
            #expect((answers.first?.count ?? 0) > 10)
            for car in cars { await car.abort() }
        }
    }
}
