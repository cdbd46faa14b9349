// Tests/DashportBrowseTests/CatalogStoreTests.swift - the compact store gives back every item as
// written, and the one-item-at-a-time reading refuses in the order a whole tree did.

import DashportTestSupport
import Foundation
import Testing

@testable import DashportBrowse

struct CatalogStoreTests {
    static let full = #"""
        { "id": "full", "title": "Full", "subtitle": "Sub", "browsable": true, "playable": true, "childStyle": "categoryGrid",
          "group": "Own", "explicit": false, "completion": 0.25, "mediaType": "podcastEpisode", "artist": "Björk",
          "album": "Homogenic", "durationMs": 9007199254740993, "albumArtist": "Björk", "genre": "Pop",
          "trackNumber": -3, "discNumber": 4000000000, "year": 1997, "live": true, "extras": { "a": "1", "é": "" },
          "children": ["bare"] }
        """#
    static let bare = #"{ "id": "bare", "title": "Bare", "playable": true, "artist": "Björk", "explicit": true }"#

    @Test func everyFieldComesBackAsWritten() async throws {
        let provider = try CatalogErrorTests.provider(
            CatalogTests.catalog(
                #"{ "id": "t", "title": "T", "browsable": true, "children": [{ "id": "full", "group": "Given" }, "bare"] }"#,
                Self.full, Self.bare))
        let full = BrowseItem(
            id: "full", title: "Full", subtitle: "Sub", browsable: true, playable: true, childStyle: .categoryGrid, group: "Own",
            explicit: false, completion: 0.25, mediaType: .podcastEpisode, artist: "Björk", album: "Homogenic",
            durationMs: 9_007_199_254_740_993,
            metadata: BrowseItem.Metadata(
                albumArtist: "Björk", genre: "Pop", trackNumber: -3, discNumber: 4_000_000_000, year: 1997, isLive: true,
                extras: ["a": "1", "é": ""]))
        let bare = BrowseItem(id: "bare", title: "Bare", playable: true, explicit: true, artist: "Björk")
        #expect(try await provider.item(id: "full") == full)
        #expect(try await provider.item(id: "bare") == bare)
        var given = full
        given.group = "Given"
        #expect(try await provider.children(of: "t", page: 0, pageSize: 10) == [given, bare])
        #expect(try await provider.children(of: "full", page: 0, pageSize: 10) == [bare])
        #expect(try await provider.children(of: "t", page: 1, pageSize: 1) == [bare])
        #expect(try await provider.children(of: "t", page: 2, pageSize: 1) == [])
        #expect(try await provider.item(id: "none") == nil)
    }

    /// A problem of an item's content comes after any the reader finds later in the file, and the
    /// JSON's come before both, wherever they are.
    @Test func problemsAreRefusedInTheOrderOfAWholeTree() throws {
        let missingTitle = #"{ "id": "a", "playable": true }"#
        let misspelled = #"{ "id": "b", "titel": "B", "playable": true }"#
        let twice = #"{ "id": "c", "title": "C", "title": "D", "playable": true }"#
        func refusal(_ json: String) throws -> CatalogError {
            do {
                _ = try CatalogErrorTests.provider(json)
            } catch let error as CatalogError {
                return error
            }
            Issue.record("accepted")
            throw CancellationError()
        }
        let tab = #"{ "id": "t", "title": "T", "browsable": true }"#
        #expect(try refusal(CatalogTests.catalog(tab, missingTitle, misspelled)).problem == .unknownKey("titel", suggestion: "title"))
        let json = try refusal(CatalogTests.catalog(tab, misspelled, missingTitle, twice))
        guard case .invalidJSON(let reason) = json.problem else {
            Issue.record("\(json)")
            return
        }
        #expect(reason.contains("appears twice"))
        #expect(try refusal(CatalogTests.catalog(tab, missingTitle)).problem == .missingTitle)
    }
}
