// Tests/DashportBrowseTests/CatalogErrorTests.swift - catalog items that open to an error screen:
// the format, every way such an item is refused, and the demo library's "Locked" shows.

import Foundation
import DashportTestSupport
import Testing
@testable import DashportBrowse

@Suite struct CatalogErrorTests {
    /// The demo's locked shows, as the catalog writes them (the test's own copy, not read back).
    static let demoLocked: [(id: String, error: BrowseError)] = [
        (
            "locked-members-hour",
            BrowseError(
                code: .authenticationExpired,
                message: "Your Night Desk sign-in has expired. Sign in again on your phone to keep listening.",
                resolution: .init(label: "Sign in again", url: "https://example.com/night-desk/sign-in"))
        ),
        (
            "locked-studio-extra",
            BrowseError(
                code: .premiumAccountRequired,
                message: "Studio Sessions Extra is for Premium listeners. Upgrade on your phone to listen in the car.",
                resolution: .init(label: "Upgrade", url: "https://example.com/premium"))
        ),
        (
            "locked-matchday-live",
            BrowseError(
                code: .notAvailableInRegion,
                message: "Matchday Live is not available in your country because of broadcast rights.",
                resolution: .init(label: "Learn more", url: "https://example.com/help/regions"))
        ),
        (
            "locked-after-dark",
            BrowseError(
                code: .parentalControlRestricted,
                message: "Parental controls on this profile block After Dark Stories.",
                resolution: .init(label: "Change parental controls", url: "https://example.com/account/parental-controls"))
        ),
        (
            "locked-road-notes-video",
            BrowseError(
                code: .notSupported,
                message: "Road Notes on Video has video episodes only, which cannot be played in the car.",
                resolution: .init(label: "Watch on your phone", url: "https://example.com/road-notes/video"))
        ),
    ]

    /// Writes `json` as a catalog in a fresh folder and loads it.
    static func provider(_ json: String) throws -> CatalogProvider {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path + "/catalog.json"
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return try CatalogProvider(contentsOf: path)
    }

    @Test func openingAnErrorItemThrowsItsErrorAndNothingElseChanges() async throws {
        let provider = try Self.provider(
            CatalogTests.catalog(
                #"{ "id": "t", "title": "T", "browsable": true, "children": ["full", "bare", "plain"] }"#,
                #"{ "id": "full", "title": "Full", "browsable": true, "error": { "code": "premiumAccountRequired", "#
                    + #""message": "Premium only.", "resolution": { "label": "Upgrade", "url": "https://example.com/up" } } }"#,
                #"{ "id": "bare", "title": "Bare", "browsable": true, "playable": true, "error": { "code": "notSupported", "#
                    + #""message": "Not here.", "resolution": { "label": "OK" } } }"#,
                #"{ "id": "plain", "title": "Plain", "browsable": true, "error": { "code": "authenticationExpired", "message": "Sign in." } }"#
            ))

        let expected: [String: BrowseError] = [
            "full": BrowseError(
                code: .premiumAccountRequired, message: "Premium only.",
                resolution: .init(label: "Upgrade", url: "https://example.com/up")),
            "bare": BrowseError(code: .notSupported, message: "Not here.", resolution: .init(label: "OK")),
            "plain": BrowseError(code: .authenticationExpired, message: "Sign in."),
        ]
        for (id, error) in expected {
            let thrown = await #expect(throws: BrowseError.self) { try await provider.children(of: id, page: 0, pageSize: 10) }
            #expect(thrown == error, "\(id)")
            // Every page of it: the error is the answer, not a list that happens to be empty.
            let later = await #expect(throws: BrowseError.self) { try await provider.children(of: id, page: 3, pageSize: 1) }
            #expect(later == error, "\(id)")
            // The item itself is an ordinary browsable entry of its parent.
            let item = try #require(try await provider.item(id: id))
            #expect(item.browsable)
        }
        #expect(try await provider.children(of: "t", page: 0, pageSize: 10).map(\.id) == ["full", "bare", "plain"])
        #expect(try await provider.item(id: "bare")?.playable == true)
        // An error item is found by search like any other.
        #expect(try await provider.search(query: "bare", page: 0, pageSize: 10).map(\.id) == ["bare"])
    }

    @Test func theCoreShowsACatalogErrorAsTheScreenTheCarCanDraw() async throws {
        let provider = try Self.provider(
            CatalogTests.catalog(
                #"{ "id": "t", "title": "T", "browsable": true, "children": ["x"] }"#,
                #"{ "id": "x", "title": "X", "browsable": true, "error": { "code": "notAvailableInRegion", "message": "Not in your country." } }"#
            ))
        let core = makeCore(provider)
        let error = BrowseError(code: .notAvailableInRegion, message: "Not in your country.")
        #expect(await core.children(of: "x", page: 0, pageSize: 10, for: .full) == .error(error))
        #expect(await core.children(of: "x", page: 0, pageSize: 10, for: .legacy) == .empty)
        #expect(await core.reports.map(\.code) == [BrowseReportCode.errorHidden])
    }

    /// An item `e` with `error` (JSON) and `extra` keys.
    static func errorItem(_ error: String, extra: String = "") -> String {
        #"{ "id": "e", "title": "E", "browsable": true\#(extra), "error": \#(error) }"#
    }

    /// A catalog whose one tab lists `e` (the first of `items`), refused for `problem` at item `e`.
    static func broken(
        _ name: String, _ items: [String], _ problem: CatalogError.Problem?, _ text: String
    ) -> CatalogTests.BrokenCatalog {
        let tab = #"{ "id": "t", "title": "T", "browsable": true, "children": ["e"] }"#
        let json = #"{ "format": "dashport.catalog", "version": 1, "root": ["t"], "items": [\#(([tab] + items).joined(separator: ","))] }"#
        return CatalogTests.BrokenCatalog(name: name, json: json, item: "e", problem: problem, problemText: text)
    }

    static let brokenErrors: [CatalogTests.BrokenCatalog] = [
        broken(
            "unknown error code", [errorItem(#"{ "code": "paymentRequired", "message": "Pay." }"#)],
            .unknownErrorCode("paymentRequired"), "error code 'paymentRequired', not one of authenticationExpired, premiumAccountRequired"),
        broken(
            "error code in the wrong case", [errorItem(#"{ "code": "AuthenticationExpired", "message": "Sign in." }"#)],
            .unknownErrorCode("AuthenticationExpired"), "error code 'AuthenticationExpired'"),
        broken(
            "error without a code", [errorItem(#"{ "message": "Sign in." }"#)],
            .unknownErrorCode(nil), "error without a code, not one of"),
        broken(
            "empty error message", [errorItem(#"{ "code": "notSupported", "message": "" }"#)],
            .emptyErrorMessage, "error with an empty message"),
        broken(
            "blank error message", [errorItem(#"{ "code": "notSupported", "message": " \n " }"#)],
            .emptyErrorMessage, "error with an empty message"),
        broken(
            "error without a message", [errorItem(#"{ "code": "notSupported" }"#)],
            .emptyErrorMessage, "error with an empty message"),
        broken(
            "empty resolution label",
            [
                errorItem(
                    #"{ "code": "premiumAccountRequired", "message": "Premium.", "resolution": { "label": "", "url": "https://example.com" } }"#
                )
            ],
            .emptyResolutionLabel, "resolution with an empty label"),
        broken(
            "resolution without a label",
            [errorItem(#"{ "code": "premiumAccountRequired", "message": "Premium.", "resolution": { "url": "https://example.com" } }"#)],
            .emptyResolutionLabel, "resolution with an empty label"),
        broken(
            "plain http resolution",
            [
                errorItem(
                    #"{ "code": "premiumAccountRequired", "message": "Premium.", "resolution": { "label": "Up", "url": "http://example.com" } }"#
                )
            ],
            .badResolutionUrl("http://example.com"), "url 'http://example.com' that is not a valid https URL"),
        broken(
            "resolution url without a host",
            [
                errorItem(
                    #"{ "code": "premiumAccountRequired", "message": "Premium.", "resolution": { "label": "Up", "url": "https://" } }"#)
            ],
            .badResolutionUrl("https://"), "url 'https://'"),
        broken(
            "error on a track",
            [#"{ "id": "e", "title": "E", "playable": true, "error": { "code": "notSupported", "message": "No." } }"#],
            .errorOnNonBrowsable, "has an error but is not browsable"),
        broken(
            "error on an item with children",
            [
                errorItem(#"{ "code": "notSupported", "message": "No." }"#, extra: #", "children": ["e2"]"#),
                #"{ "id": "e2", "title": "E2", "playable": true }"#,
            ],
            .childrenOnErrorItem, "has an error and lists children"),
        broken(
            "error on an item with an empty children list",
            [errorItem(#"{ "code": "notSupported", "message": "No." }"#, extra: #", "children": []"#)],
            .childrenOnErrorItem, "has an error and lists children"),
        broken(
            "error that is not an object", [errorItem(#""locked""#)],
            nil, "has 'error' as a string, but it wants an object"),
    ]

    @Test(arguments: brokenErrors)
    func aBrokenErrorItemIsRefusedNamingFileItemAndProblem(_ broken: CatalogTests.BrokenCatalog) throws {
        try CatalogTests.expectRefused(broken)
    }

    @Test func theDemoPodcastsTabHasOneLockedShowPerErrorCode() async throws {
        let provider = try Fixtures.demoProvider()
        let podcasts = try await provider.children(of: "tab-podcasts", page: 0, pageSize: 100)
        // The two shows stay first and ungrouped; the locked ones follow under one header.
        #expect(podcasts.map(\.id) == ["show-road-notes", "show-late-shift"] + Self.demoLocked.map(\.id))
        #expect(podcasts.map(\.group) == [nil, nil] + Array(repeating: "Locked", count: 5))
        #expect(Set(Self.demoLocked.map(\.error.code)) == Set(BrowseError.Code.allCases))
        for (id, expected) in Self.demoLocked {
            let item = try #require(podcasts.first { $0.id == id })
            #expect(item.browsable && !item.playable && item.mediaType == .podcast)
            let thrown = await #expect(throws: BrowseError.self) { try await provider.children(of: id, page: 0, pageSize: 50) }
            #expect(thrown == expected)
        }
    }

    @Test func walkingTheDemoShowsFiveScreensToAFullCarAndTwoToALegacyCar() async throws {
        for car in [CarProfile.full, .legacy] {
            let core = makeCore(try Fixtures.demoProvider())
            var screens: [BrowseError] = []
            var emptyLocked: [String] = []
            var queue = [BrowseItem.rootId]
            var seen = Set<String>()
            while let id = queue.popLast() {
                guard seen.insert(id).inserted else { continue }
                let answer = await core.children(of: id, page: 0, pageSize: 100, for: car)
                if case .error(let error) = answer { screens.append(error) }
                if id.hasPrefix("locked-"), answer == .empty { emptyLocked.append(id) }
                queue += answer.items.filter(\.browsable).map(\.id)
            }
            let reports = await core.reports
            // The root's two deliberate rejects are still the only root rejections.
            #expect(
                Set(reports.filter { $0.code == BrowseReportCode.rootRejected }.compactMap(\.itemId)) == ["tab-radio", "track-welcome"])
            let hidden = reports.filter { $0.code == BrowseReportCode.errorHidden }
            if car == .full {
                #expect(Set(screens) == Set(Self.demoLocked.map(\.error)))
                #expect(emptyLocked.isEmpty && hidden.isEmpty)
                #expect(reports.count == 2)
            } else {
                #expect(Set(screens.map(\.code)) == [.authenticationExpired, .parentalControlRestricted])
                #expect(screens.count == 2)
                #expect(Set(emptyLocked) == ["locked-studio-extra", "locked-matchday-live", "locked-road-notes-video"])
                #expect(hidden.count == 3)
                #expect(reports.count == 5)
            }
        }
    }
}
