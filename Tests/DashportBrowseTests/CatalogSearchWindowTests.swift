// Tests/DashportBrowseTests/CatalogSearchWindowTests.swift - any first window gives the same answers.

import Testing

@_spi(SearchReference) import DashportBrowse

/// FuzzBrowse searches with first windows of 1 to 64 positions (the server's is 4096) so its
/// queries cross many windows and bitmap words with a few hundred items: every width must give
/// the linear search's answers, the first `keep` of them and their count.
struct CatalogSearchWindowTests {
    static let entries: [[String]] = (0..<500).map { n in
        [
            CatalogSearchIndex.fold("Song \(n) \(n % 7 == 0 ? "déjà vu" : "midnight")"),
            CatalogSearchIndex.fold(n % 3 == 0 ? "Björk" : "a-ha"), "album \(n % 11)",
        ]
    }

    @Test(arguments: [1, 7, 24, 63, 64, 65, 4096])
    func everyFirstWindowAnswersAsTheLinearSearch(firstWindow: Int) {
        let index = CatalogSearchIndex(Self.entries)
        for query in ["déjà vu", "Björk", "a", "ah", "Song 4", "album 10", "midnight", "zz", "song 49"].map(CatalogSearchIndex.fold) {
            let linear = index.linearMatches(query)
            for limit in [1, 7, 100, 1000] {
                let (kept, count) = index.search(query, limit: limit, keep: 5, firstWindow: firstWindow)
                #expect(kept == Array(linear.prefix(min(5, limit))), "'\(query)' to \(limit), window \(firstWindow)")
                #expect(count == min(linear.count, limit), "'\(query)' counted to \(limit), window \(firstWindow)")
            }
        }
        #expect(index.linearMatches(CatalogSearchIndex.fold("déjà vu")).count == 72, "the catalog crosses windows with matches in each")
    }
}
