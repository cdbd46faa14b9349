import DashportTestSupport
import Foundation
import Testing

@testable import DashportBrowse

/// Search ignores case and diacritics the way Foundation's `folding(options: [.caseInsensitive,
/// .diacriticInsensitive], locale: nil)` did, without Foundation (the server imports only
/// `FoundationEssentials`; issue 10, item 6).
struct CatalogSearchFoldTests {
    /// (text, its fold): the expected folds are what Foundation's `folding` returned for each.
    static let folds: [(String, String)] = [
        ("Beyoncé", "beyonce"), ("ÅNGSTRÖM", "angstrom"), ("Sigur Rós", "sigur ros"), ("Motörhead", "motorhead"),
        ("Dvořák", "dvorak"), ("Tōkyō", "tokyo"), ("Tiếng Việt", "tieng viet"), ("İstanbul", "istanbul"),
        ("Ñandú", "nandu"), ("Ελληνικά", "ελληνικα"), ("ΣΊΣΥΦΟΣ", "σισυφοσ"), ("Ёлка", "елка"),
        ("café\u{301}", "cafe"), ("x\u{20DD}", "x"),
        // Case folding, not only lowercasing.
        ("Straße", "strasse"), ("ﬁne", "fine"), ("ǅ", "ǆ"),
        // Letters without a decomposition, and marks that are part of a letter elsewhere, stay.
        ("Ærøskøbing", "ærøskøbing"), ("हिन्दी", "हिन्दी"), ("שָׁלוֹם", "שָׁלוֹם"), ("がぱ", "がぱ"), ("한국어", "한국어"),
    ]

    @Test(arguments: folds)
    func foldIgnoresCaseAndDiacritics(text: String, folded: String) {
        #expect(CatalogLoader.fold(text) == folded)
    }

    @Test func searchFindsTitlesWhateverTheCaseAndAccentsOfTheQuery() async throws {
        let provider = try CatalogErrorTests.provider(
            CatalogTests.catalog(
                #"{ "id": "t", "title": "T", "browsable": true, "children": ["a", "b", "c"] }"#,
                #"{ "id": "a", "title": "Déjà Vu", "artist": "Beyoncé", "playable": true }"#,
                #"{ "id": "b", "title": "Hoppípolla", "artist": "Sigur Rós", "playable": true }"#,
                #"{ "id": "c", "title": "Die Straße", "playable": true }"#))
        #expect(try await provider.search(query: "BEYONCE", page: 0, pageSize: 10).map(\.id) == ["a"])
        #expect(try await provider.search(query: "deja vu", page: 0, pageSize: 10).map(\.id) == ["a"])
        #expect(try await provider.search(query: "  rós\n", page: 0, pageSize: 10).map(\.id) == ["b"])
        #expect(try await provider.search(query: "STRASSE", page: 0, pageSize: 10).map(\.id) == ["c"])
        #expect(try await provider.search(query: "zzz", page: 0, pageSize: 10).isEmpty)
        #expect(try await provider.search(query: " \t", page: 0, pageSize: 10).isEmpty)
    }

    /// A catalog path that names a FIFO is refused at once (reading it would block start-up).
    @Test func aFIFOIsRefusedAsACatalogInsteadOfRead() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path + "/catalog.json"
        #expect(mkfifo(path, 0o600) == 0)
        let error = #expect(throws: CatalogError.self) { try CatalogProvider(contentsOf: path) }
        #expect(error?.problem == .unreadable("it is a FIFO, not a regular file"))
    }
}
