// Error screens end to end: the car's request, the real browse core's answer for the car's profile,
// and the BROWSE_RESULT the car decodes. Full and legacy answers pass through unchanged.

import DashportTestSupport
import DashportBrowse
import DashportMessages
import DashportSession
import Testing
@testable import DashportServices

/// A provider whose every list fails with the error named by its parent id (`locked-<code>`).
struct MediaChannelLockedProvider: BrowseProvider {
    static func error(_ code: BrowseError.Code) -> BrowseError {
        BrowseError(
            code: code, message: "Cannot show \(code.rawValue)",
            resolution: BrowseError.Resolution(label: "Fix it", url: "https://fix.example/\(code.rawValue)"))
    }

    func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        if let code = BrowseError.Code(rawValue: String(parentId.dropFirst("locked-".count))) { throw Self.error(code) }
        return []
    }

    func item(id: String) async throws -> BrowseItem? { nil }
}

@Suite("Media channel: error screens")
struct MediaChannelErrorScreenTests {
    /// Asks the real browse core what the fake car asked for, and hands the answer back.
    static func browse(
        _ code: BrowseError.Code, support: DashportMedia.ErrorScreenSupport, listed: [DashportMedia.BrowseErrorCode] = []
    ) async throws -> (answer: BrowseAnswer, result: DashportMedia.BrowseResult) {
        var car = MediaChannelFakeCar(profile: DashportMedia.CarProfile(errorScreenSupport: support, drawableErrorScreens: listed))
        // A manual clock never advanced: only the provider ends a wait.
        let core = BrowseCore(provider: MediaChannelLockedProvider(), configuration: BrowseConfiguration(clock: ManualClock()))
        let actions = car.send(.getChildren, DashportMedia.GetChildren(requestId: 77, parentId: "locked-\(code.rawValue)"))
        guard case .browse(let ticket, .children(let parent, let page, let size, let profile)) = try #require(actions.first) else {
            throw MediaChannelTestFailure.wrongMessage
        }
        let answer = await core.children(of: parent, page: page, pageSize: size, for: profile)
        let result = try MediaChannelFakeCar.browseResult(car.answer(ticket, answer))
        #expect(result.requestId == 77)
        return (answer, result)
    }

    /// The schema's numbers, written out independently of the service's mapping.
    static let wireCodes: [BrowseError.Code: DashportMedia.BrowseErrorCode] = [
        .authenticationExpired: DashportMedia.BrowseErrorCode(rawValue: 1),
        .premiumAccountRequired: DashportMedia.BrowseErrorCode(rawValue: 2),
        .notAvailableInRegion: DashportMedia.BrowseErrorCode(rawValue: 3),
        .parentalControlRestricted: DashportMedia.BrowseErrorCode(rawValue: 4),
        .notSupported: DashportMedia.BrowseErrorCode(rawValue: 5),
    ]

    static func expectScreen(_ result: DashportMedia.BrowseResult, _ code: BrowseError.Code) {
        let error = MediaChannelLockedProvider.error(code)
        let expected = DashportMedia.BrowseErrorScreen(
            code: wireCodes[code] ?? .unknown,
            message: error.message,
            resolution: DashportMedia.BrowseErrorScreen.Resolution(label: "Fix it", url: "https://fix.example/\(code.rawValue)"))
        #expect(result.outcome == .errorScreen(expected))
    }

    static func expectEmptyPage(_ result: DashportMedia.BrowseResult) {
        #expect(result.outcome == .items(DashportMedia.ItemPage(items: [], page: 0, total: 0, hasMore: false)))
    }

    @Test(arguments: BrowseError.Code.allCases)
    func aFullCarGetsEveryScreenUnchanged(code: BrowseError.Code) async throws {
        let (answer, result) = try await Self.browse(code, support: .full)
        #expect(answer == .error(MediaChannelLockedProvider.error(code)))
        Self.expectScreen(result, code)
    }

    @Test(arguments: BrowseError.Code.allCases)
    func aLegacyCarGetsWhatTheBrowseCoreAnswers(code: BrowseError.Code) async throws {
        let (answer, result) = try await Self.browse(code, support: .legacy)
        if code == .authenticationExpired || code == .parentalControlRestricted {
            #expect(answer == .error(MediaChannelLockedProvider.error(code)))
            Self.expectScreen(result, code)
        } else {
            #expect(answer == .empty)
            Self.expectEmptyPage(result)
        }
    }

    @Test(arguments: BrowseError.Code.allCases)
    func aListedCarGetsOnlyItsListedScreens(code: BrowseError.Code) async throws {
        let (_, result) = try await Self.browse(code, support: .listed, listed: [.premiumAccountRequired, .notSupported])
        if code == .premiumAccountRequired || code == .notSupported {
            Self.expectScreen(result, code)
        } else {
            Self.expectEmptyPage(result)
        }
    }

    @Test func wireCodesMatchTheSchema() {
        for code in BrowseError.Code.allCases {
            #expect(code.wire == Self.wireCodes[code])
            #expect(BrowseError.Code(wire: code.wire) == code)
        }
        #expect(BrowseError.Code(wire: .unknown) == nil)
    }
}
