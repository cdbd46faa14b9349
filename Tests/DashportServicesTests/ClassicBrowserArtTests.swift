// Tests/DashportServicesTests/ClassicBrowserArtTests.swift - covers: asked for, arriving, failing, late, over budget.

import DashportBrowse
import DashportMessages
import Testing
@testable import DashportServices

@Suite struct ClassicBrowserArtTests {
    /// get_album_art false: no cover is fetched and no node carries one.
    @Test func noArtWhenTheCarAsksForNone() async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard)
        let root = try #require(try await hu.node("/", art: false).root)
        #expect(root.mediaSources.allSatisfy { $0.albumArt == nil })
        let source = try #require(try await hu.node("/src/music", art: false).source)
        #expect(source.source.albumArt == nil)
        #expect(source.lists.allSatisfy { $0.albumArt == nil })
        let song = try #require(try await hu.node("/song/t-1", art: false).song)
        #expect(song.albumArt == nil)
        #expect(hu.fetchedArt.isEmpty)
    }

    /// get_album_art absent means true (the schema default): each distinct cover is fetched once,
    /// at the car's size, and lands on every entry that uses it.
    @Test func artIsFetchedOncePerCoverAndPlaced() async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard)
        let node = try #require(try await hu.node("/src/music").source)
        #expect(hu.fetchedArt == ["https://art/tab", "https://art/a", "https://art/solo"])
        #expect(node.source.albumArt == classicArt("https://art/tab"))
        #expect(
            node.lists.map(\.albumArt) == [classicArt("https://art/a"), nil, classicArt("https://art/solo"), classicArt("https://art/a")])
        let sizes = hu.actions.compactMap { action -> [Int]? in
            if case .fetchArtwork(_, _, let width, let height) = action { [width, height] } else { nil }
        }
        #expect(sizes == Array(repeating: [256, 256], count: 3))
    }

    /// The root's tabs carry their covers; the list node carries the list's own.
    @Test func rootAndListCarryTheirCovers() async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard)
        let root = try #require(try await hu.node("/").root)
        #expect(root.mediaSources.map(\.albumArt) == [classicArt("https://art/tab"), nil, nil])
        let list = try #require(try await hu.node("/list/album-a").list)
        #expect(list.list.albumArt == classicArt("https://art/a"))
    }

    /// The cover size follows the car profile the service was configured with.
    @Test func coverSizeFollowsTheCarProfile() async throws {
        var hu = ClassicFakeHeadUnit(
            provider: ClassicLibrary.standard, configuration: .init(car: CarProfile(artworkSizePx: 128)))
        _ = try await hu.node("/song/t-1")
        let sizes = hu.actions.compactMap { action -> [Int]? in
            if case .fetchArtwork(_, "https://art/a", let width, let height) = action { [width, height] } else { nil }
        }
        #expect(sizes == [[128, 128]])
    }

    /// A cover that fails is left out; the others are sent.
    @Test func failedCoverIsLeftOut() async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard)
        hu.artwork = { $0 == "https://art/solo" ? .fail : .bytes(classicArt($0)) }
        let node = try #require(try await hu.node("/src/music").source)
        #expect(node.lists.map(\.albumArt) == [classicArt("https://art/a"), nil, nil, classicArt("https://art/a")])
        #expect(node.source.albumArt == classicArt("https://art/tab"))
    }

    /// A cover that does not come holds the node until the artwork deadline, then the node goes
    /// without it; the late cover is ignored.
    @Test func lateCoverTimesOut() async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard)
        hu.artwork = { $0 == "https://art/solo" ? .hold : .bytes(classicArt($0)) }
        hu.now = .seconds(100)
        #expect(try await hu.get("/src/music").isEmpty)
        #expect(hu.service.inFlightCount == 1)
        #expect(hu.service.nextDeadline == .seconds(102))
        #expect(try await hu.advance(to: .milliseconds(101_999)).isEmpty)
        let nodes = try await hu.advance(to: .seconds(102))
        let node = try #require(nodes.first?.source)
        #expect(nodes.count == 1)
        #expect(node.lists.map(\.albumArt) == [classicArt("https://art/a"), nil, nil, classicArt("https://art/a")])
        #expect(hu.service.inFlightCount == 0)
        #expect(hu.service.nextDeadline == nil)
        let held = try #require(hu.held.first)
        #expect(hu.service.artworkAnswered(held.ticket, classicArt(held.uri), now: .seconds(103)).isEmpty)
    }

    /// A held cover that comes before the deadline completes the node at once.
    @Test func coverArrivingInTimeCompletesTheNode() async throws {
        var hu = ClassicFakeHeadUnit(provider: ClassicLibrary.standard)
        hu.artwork = { _ in .hold }
        #expect(try await hu.get("/song/t-3").isEmpty)
        let held = try #require(hu.held.first)
        let nodes = try await hu.run(hu.service.artworkAnswered(held.ticket, [1, 2, 3], now: .seconds(1)))
        #expect(nodes.first?.song?.albumArt == [1, 2, 3])
        #expect(hu.service.inFlightCount == 0)
    }

    /// Covers go in order until the node's byte budget is spent; one that does not fit is left out.
    @Test func coversStopAtTheNodeBudget() async throws {
        let tab = classicArt("https://art/tab").count
        let a = classicArt("https://art/a").count
        var hu = ClassicFakeHeadUnit(
            provider: ClassicLibrary.standard, configuration: .init(maxArtworkBytesPerNode: tab + a + a))
        let node = try #require(try await hu.node("/src/music").source)
        #expect(node.source.albumArt != nil)
        // album-a fits, the lone track's longer cover does not, the station's (album-a's again) still does.
        #expect(node.lists.map(\.albumArt) == [classicArt("https://art/a"), nil, nil, classicArt("https://art/a")])
    }
}
