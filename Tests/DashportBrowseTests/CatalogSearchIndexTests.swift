// Tests/DashportBrowseTests/CatalogSearchIndexTests.swift - the search index answers what the linear search did.

import DashportTestSupport
import Foundation
import Testing

@_spi(SearchReference) @testable import DashportBrowse

/// The index (``CatalogSearchIndex``) must give the very results, in the very order, of the search
/// it replaced (``CatalogProvider/linearSearch(query:page:pageSize:)``, every item compared).
struct CatalogSearchIndexTests {
    static let artists = [
        "Beyoncé", "Sigur Rós", "MOTÖRHEAD", "Dvořák", "Björk", "Ólafur Arnalds", "Zoë Keating", "The Beatles",
        "Straße Band", "हिन्दी गीत", "Ελληνικά", "Ёлка", "Mötley Crüe", "Café Tacvba", "a-ha", "ＡＢＣ Full Width",
    ]
    static let words = [
        "midnight", "Sun", "harbour", "DÉJÀ", "vu", "Über", "Alles", "naïve", "façade", "Tōkyō", "über", "Ærø",
        "fine", "ﬁne", "the", "Theme", "a", "aa", "x\u{20DD}", "cafe\u{301}", "ǅemal", "  double  space",
    ]

    /// A catalog entry per item: `count` playable items whose titles, artists and albums mix case,
    /// accents, scripts, repeated and rare words (deterministic: item `n` is always the same).
    static func items(_ count: Int) -> [String] {
        (0..<count).map { n in
            let title = "\(words[n % words.count]) \(words[(n / 3) % words.count]) \(n)"
            let artist = artists[n % artists.count]
            let album = n % 5 == 0 ? #", "album": "Album \#(words[(n / 7) % words.count])""# : ""
            return #"{ "id": "i\#(n)", "title": "\#(title)", "artist": "\#(artist)", "playable": true\#(album) }"#
        }
    }

    /// One catalog of 1500 items for every query (loading it again per query would only be slower).
    static let small = Result { try provider(items: 1500) }

    static func provider(items count: Int) throws -> CatalogProvider {
        try CatalogErrorTests.provider(
            CatalogTests.catalog(#"{ "id": "t", "title": "Tab Midnight", "browsable": true }"#, items(count).joined(separator: ",")))
    }

    static let queries = [
        // Prefixes of words, whole words, several words, the middle of words.
        "mid", "midnight", "midnight sun", "night s", "Sun ", "HARB", "deja vu", "déjà", "DEJA", "ueber", "uber",
        "über alles", "naive", "FACADE", "tokyo", "tōkyō", "ærø", "AERO", "fine", "ﬁne", "FINE", "the", "theme 1",
        "beyonce", "BEYONCÉ", "sigur", "ros", "rós", "motorhead", "dvorak", "bjork", "olafur", "zoe", "strasse",
        "STRASSE", "straße", "हिन्दी", "ह", "ελληνικα", "ΕΛΛΗΝΙΚΆ", "елка", "Ёлка", "crue", "cafe", "café", "tacvba",
        "a-ha", "ＡＢＣ", "ａｂｃ", "abc", "x", "ǆ", "ǅ", "double  space", "double space", "e 1", "1", "12", "123",
        "album", "album vu", "Album Über",
        // Single and two characters, common and rare.
        "a", "e", "t", "o", "aa", "ab", "9", "99",
        // No match: unknown characters, unknown trigrams of known characters, too long, a tab's title.
        "zzz", "qqq", "日本", "midnight sunset", "sun midnight", "tab midnight", "xyzzy", "\u{301}", "1 1 1 1",
    ]

    @Test(arguments: queries)
    func theIndexFindsWhatTheLinearSearchFound(query: String) async throws {
        try await offThePool {
            let provider = try Self.small.get()
            for pageSize in [1, 7, 50, 2000] {
                for page in 0..<3 {
                    let indexed = try await provider.search(query: query, page: page, pageSize: pageSize).map(\.id)
                    let linear = try await provider.linearSearch(query: query, page: page, pageSize: pageSize).map(\.id)
                    #expect(indexed == linear, "'\(query)' page \(page) of \(pageSize)")
                }
            }
            // The counted page the browse core asks for: the same items, and the list's length
            // counted up to the limit.
            let all = try await provider.linearSearch(query: query, page: 0, pageSize: 10_000).map(\.id)
            for limit in [1, 7, 100, 2000] {
                for range in [0..<1, 0..<50, 3..<10, 95..<105, 1990..<2010] {
                    let counted = try #require(try await provider.searchPage(query: query, range: range, limit: limit))
                    let shown = all.prefix(limit)
                    #expect(counted.total == shown.count, "'\(query)' counted to \(limit)")
                    #expect(
                        counted.items.map(\.id) == Array(shown[range.clamped(to: 0..<shown.count)]),
                        "'\(query)' \(range) of \(limit)")
                }
            }
        }
    }

    /// The index's own `Character` scan answers what `String.contains` answers (it replaced a
    /// `String.contains` per candidate): for every field and every piece of it, cut by
    /// `Character`s and by scalars (half a cluster), and across clusters that join or not.
    @Test func theCharacterScanAnswersWhatContainsAnswers() {
        let fields =
            Self.artists + Self.words + [
                "a\r\nb", "\r\n", "e\u{301}e", "🇫🇷🇩🇪", "👩‍👩‍👧 family", "ab\u{301}c", "aaab", "abab", "",
            ]
        var needles = Set(fields + ["\n", "\r", "e", "\u{301}", "🇫", "🇷🇩", "👩", "ab", "aab", "bab", "b\u{301}"])
        for field in fields {
            let characters = Array(field)
            let scalars = Array(field.unicodeScalars)
            for start in 0..<characters.count {
                for end in (start + 1)...characters.count { needles.insert(String(characters[start..<end])) }
            }
            for start in 0..<scalars.count {
                for end in (start + 1)...min(scalars.count, start + 3) {
                    needles.insert(String(String.UnicodeScalarView(scalars[start..<end])))
                }
            }
        }
        for field in fields {
            // The reference asks String.contains where the index lives (this file imports
            // Foundation, whose `contains` compares otherwise).
            let reference = CatalogSearchIndex([[field]])
            for needle in needles where !needle.isEmpty {
                #expect(
                    CatalogSearchIndex.characters(of: field, contain: Array(needle)) == (reference.linearMatches(needle) == [0]),
                    "'\(field)' containing '\(needle)'")
            }
        }
    }

    /// Any piece of any field, in another case or with the accents of another spelling, finds at
    /// least the item it came from, and exactly what the linear search finds.
    @Test func everyPieceOfAFieldFindsItsItem() async throws {
        try await offThePool {
            let provider = try Self.provider(items: 600)
            var generator = SplitMix(seed: 22)
            for n in stride(from: 0, to: 600, by: 7) {
                let field = Array(Self.words[n % Self.words.count] + " " + Self.words[(n / 3) % Self.words.count] + " \(n)")
                let start = Int(generator.next() % UInt64(field.count))
                let length = 1 + Int(generator.next() % UInt64(field.count - start))
                let piece = String(field[start..<(start + length)])
                for query in [piece, piece.uppercased(), piece.lowercased()] {
                    guard !query.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
                    let indexed = try await provider.search(query: query, page: 0, pageSize: 10_000).map(\.id)
                    let linear = try await provider.linearSearch(query: query, page: 0, pageSize: 10_000).map(\.id)
                    #expect(indexed == linear, "'\(query)'")
                    if query == piece, !piece.hasPrefix(" "), !piece.hasSuffix(" ") {
                        #expect(indexed.contains("i\(n)"), "'\(query)' from i\(n)")
                    }
                }
            }
        }
    }

    /// The documented maximum, 100,000 items, is searched from the index: the results are the
    /// linear search's, and the ones the generator says they must be.
    @Test func aSearchOverTheLargestCatalogAnswers() async throws {
        try await offThePool {
            // The tab is the catalog's 100,000th item.
            let provider = try Self.provider(items: CatalogLoader.maxItems - 1)
            #expect(provider.itemCount == CatalogLoader.maxItems)
            // Artist 0 (Beyoncé) is every 16th item; page 2 of 25 starts at its 51st.
            let beyonce = try await provider.search(query: "BEYONCE", page: 2, pageSize: 25).map(\.id)
            #expect(beyonce == (50..<75).map { "i\($0 * Self.artists.count)" })
            #expect(try await provider.search(query: "99998", page: 0, pageSize: 10).map(\.id) == ["i99998"])
            #expect(try await provider.search(query: "midnight sunset", page: 0, pageSize: 10).isEmpty)
            // Every result, read across all of the index's windows.
            let every = try await provider.search(query: "beyonce", page: 0, pageSize: CatalogLoader.maxItems).map(\.id)
            #expect(every == stride(from: 0, to: CatalogLoader.maxItems - 1, by: Self.artists.count).map { "i\($0)" })
            // (query, page size, whether anything matches). "ह" is in no field as a whole `Character`
            // (only as part of "हि"), and no title has "déjà" and "vu", or "über" and "alles", in a row.
            for (query, pageSize, anything) in [
                ("deja vu 4", 100, false), ("sigur ros", 100, true), ("e", 100, true), ("über alles 99", 100, false),
                ("zzz", 100, false), ("midnight 1", 100_000, true), ("aa", 100_000, true), ("ह", 100_000, false),
                ("हि", 100_000, true),
            ] {
                let indexed = try await provider.search(query: query, page: 0, pageSize: pageSize).map(\.id)
                let linear = try await provider.linearSearch(query: query, page: 0, pageSize: pageSize).map(\.id)
                #expect(indexed == linear, "'\(query)'")
                #expect(indexed.isEmpty != anything, "'\(query)'")
            }
            // What the browse core asks: a page, and the length up to its 2000.
            for query in ["beyonce", "mid", "e", "aa", "midnight 1", "sigur ros", "zzz", "ह", "हि"] {
                let linear = try await provider.linearSearch(query: query, page: 0, pageSize: 2000).map(\.id)
                for range in [0..<100, 1900..<2000] {
                    let counted = try #require(try await provider.searchPage(query: query, range: range, limit: 2000))
                    #expect(counted.total == linear.count, "'\(query)'")
                    #expect(counted.items.map(\.id) == Array(linear[range.clamped(to: 0..<linear.count)]), "'\(query)' \(range)")
                }
            }
        }
    }

    /// A reload builds the index again: the new catalog's titles are found, the old ones not.
    @Test func aReloadSearchesTheNewCatalog() async throws {
        try await offThePool {
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let path = folder.path + "/catalog.json"
            func write(_ title: String) throws {
                let json = CatalogTests.catalog(
                    #"{ "id": "t", "title": "T", "browsable": true }"#, #"{ "id": "a", "title": "\#(title)", "playable": true }"#)
                try Data(json.utf8).write(to: URL(fileURLWithPath: path))
            }
            try write("Old Song")
            let provider = try CatalogProvider(contentsOf: path)
            #expect(try await provider.search(query: "old", page: 0, pageSize: 10).map(\.id) == ["a"])
            try write("Nouvelle Chanson")
            try provider.load()
            #expect(try await provider.search(query: "old", page: 0, pageSize: 10).isEmpty)
            #expect(try await provider.search(query: "chanson", page: 0, pageSize: 10).map(\.id) == ["a"])
        }
    }
}

/// A small deterministic generator (SplitMix64), so a failing piece is the same on every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
