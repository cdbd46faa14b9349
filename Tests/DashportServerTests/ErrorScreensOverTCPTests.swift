import DashportTestSupport
import Foundation
import Testing
import DashportHeadUnit
import DashportLink
import DashportMessages
@testable import DashportServer

/// The demo library's "Locked" podcasts over real TCP: a full car sees all five error screens with
/// their message and resolution; a legacy car sees the two it can draw and an empty list for the rest.
@Suite("Error screens over TCP", .serialized)
struct ErrorScreensOverTCPTests {
    static let mediaChannel = MediaChannelOverTCPTests.mediaChannel

    /// The screens the demo catalog's locked shows open to (the test's own copy, not read back).
    static let locked: [(id: String, screen: DashportMedia.BrowseErrorScreen)] = [
        (
            "locked-members-hour",
            DashportMedia.BrowseErrorScreen(
                code: .authenticationExpired,
                message: "Your Night Desk sign-in has expired. Sign in again on your phone to keep listening.",
                resolution: .init(label: "Sign in again", url: "https://example.com/night-desk/sign-in"))
        ),
        (
            "locked-studio-extra",
            DashportMedia.BrowseErrorScreen(
                code: .premiumAccountRequired,
                message: "Studio Sessions Extra is for Premium listeners. Upgrade on your phone to listen in the car.",
                resolution: .init(label: "Upgrade", url: "https://example.com/premium"))
        ),
        (
            "locked-matchday-live",
            DashportMedia.BrowseErrorScreen(
                code: .notAvailableInRegion,
                message: "Matchday Live is not available in your country because of broadcast rights.",
                resolution: .init(label: "Learn more", url: "https://example.com/help/regions"))
        ),
        (
            "locked-after-dark",
            DashportMedia.BrowseErrorScreen(
                code: .parentalControlRestricted,
                message: "Parental controls on this profile block After Dark Stories.",
                resolution: .init(label: "Change parental controls", url: "https://example.com/account/parental-controls"))
        ),
        (
            "locked-road-notes-video",
            DashportMedia.BrowseErrorScreen(
                code: .notSupported,
                message: "Road Notes on Video has video episodes only, which cannot be played in the car.",
                resolution: .init(label: "Watch on your phone", url: "https://example.com/road-notes/video"))
        ),
    ]

    /// A Dashport car (as ``MediaChannelOverTCPTests/dashportCar(maxTabs:)``) that draws `support` screens.
    static func car(drawing support: DashportMedia.ErrorScreenSupport) -> HeadUnitConfiguration {
        var configuration = HeadUnitConfiguration()
        let profile = DashportMedia.CarProfile(
            artworkSizes: [DashportMedia.ArtworkSize(width: 128, height: 128)], errorScreenSupport: support, supportsSearch: true)
        configuration.car.services = configuration.car.services.map { service in
            guard case .vendorExtension(let name, _) = service.kind else { return service }
            return CarService(channel: service.channel, kind: .vendorExtension(name: name, data: profile.serializedBytes()))
        }
        return configuration
    }

    /// Asks for the children of `parent` and returns the whole answer: a page or an error screen.
    func browse(_ car: TestCar, of parent: String, requestId: UInt32) async throws -> DashportMedia.BrowseResult.Outcome? {
        let request = DashportMedia.GetChildren(requestId: requestId, parentId: parent, page: 0, pageSize: 50)
        await car.sendUnchecked(channel: Self.mediaChannel, messageId: 0x8003, body: request.serializedBytes())
        try await car.waitUntil("children of \(parent)") { car in
            car.messages(on: Self.mediaChannel).contains {
                $0.id == 0x8006 && (try? DashportMedia.BrowseResult(serializedBytes: $0.body))?.requestId == requestId
            }
        }
        return try #require(
            await car.messages(on: Self.mediaChannel).lazy
                .filter { $0.id == 0x8006 }
                .compactMap { try? DashportMedia.BrowseResult(serializedBytes: $0.body) }
                .first { $0.requestId == requestId }
        ).outcome
    }

    /// Connects a car drawing `support` and returns it with the Podcasts tab's children.
    func connectAndOpenPodcasts(
        _ server: TestServer, drawing support: DashportMedia.ErrorScreenSupport
    ) async throws -> (TestCar, [DashportMedia.BrowseItem]) {
        let car = try await TestCar.connect(to: server.server.address, configuration: Self.car(drawing: support))
        try await car.waitUntil("server hello") { $0.messages(on: Self.mediaChannel).contains { $0.id == 0x8001 } }
        let hello = try DashportMedia.ServerHello(
            serializedBytes: try #require(await car.messages(on: Self.mediaChannel).first { $0.id == 0x8001 }).body)
        let walker = MediaChannelOverTCPTests()
        let tabs = try await walker.children(car, of: hello.rootId, requestId: 1)
        let podcasts = try #require(tabs.first { $0.title == "Podcasts" })
        return (car, try await walker.children(car, of: podcasts.id, requestId: 2))
    }

    @Test func aFullCarSeesEveryLockedShowsScreen() async throws {
        try await TestServer.with { server in
            let (car, podcasts) = try await connectAndOpenPodcasts(server, drawing: .full)
            let lockedRows = podcasts.filter { $0.group == "Locked" }
            #expect(lockedRows.map(\.id) == Self.locked.map(\.id))
            #expect(lockedRows.allSatisfy { $0.browsable })

            for (index, (id, expected)) in Self.locked.enumerated() {
                let outcome = try await browse(car, of: id, requestId: UInt32(10 + index))
                guard case .errorScreen(let screen) = outcome else {
                    Issue.record("\(id): expected an error screen, got \(String(describing: outcome))")
                    continue
                }
                #expect(screen.code == expected.code, "\(id)")
                #expect(screen.message == expected.message, "\(id)")
                #expect(screen.resolution?.label == expected.resolution?.label, "\(id)")
                #expect(screen.resolution?.url == expected.resolution?.url, "\(id)")
            }
        }
    }

    @Test func aLegacyCarSeesTheTwoScreensItDrawsAndEmptyListsForTheRest() async throws {
        try await TestServer.with { server in
            let (car, podcasts) = try await connectAndOpenPodcasts(server, drawing: .legacy)
            #expect(podcasts.filter { $0.group == "Locked" }.map(\.id) == Self.locked.map(\.id))

            let drawn: Set<DashportMedia.BrowseErrorCode> = [.authenticationExpired, .parentalControlRestricted]
            for (index, (id, expected)) in Self.locked.enumerated() {
                let outcome = try await browse(car, of: id, requestId: UInt32(10 + index))
                switch outcome {
                case .errorScreen(let screen):
                    #expect(drawn.contains(expected.code), "\(id): a legacy car cannot draw \(expected.code)")
                    #expect(screen == expected, "\(id)")
                case .items(let page):
                    #expect(!drawn.contains(expected.code), "\(id): a legacy car draws \(expected.code), yet got a list")
                    #expect(page.items.isEmpty, "\(id)")
                    #expect((page.total ?? 0) == 0, "\(id)")
                default:
                    Issue.record("\(id): expected a screen or an empty list, got \(String(describing: outcome))")
                }
            }
        }
    }
}
