// Tests/DashportBrowseTests/BrowseCoreSearchPageTests.swift - a counted search page answers what the whole list did.

import DashportTestSupport
import Synchronization
import Testing

@testable import DashportBrowse

/// The browse core asks a provider that can count (the catalog) for one page and the list's
/// length, not for the whole list: every answer and every report must be the ones the whole list
/// gave. The same catalog behind a provider that cannot count is the reference.
struct BrowseCoreSearchPageTests {
    /// A provider that passes everything on but cannot count: the core asks it for the whole list.
    struct Uncounted: BrowseProvider {
        let inner: CatalogProvider
        func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
            try await inner.children(of: parentId, page: page, pageSize: pageSize)
        }
        func item(id: String) async throws -> BrowseItem? { try await inner.item(id: id) }
        var supportsSearch: Bool { true }
        func search(query: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
            try await inner.search(query: query, page: page, pageSize: pageSize)
        }
    }

    /// Counts how often the whole list was asked for, to show that the counted path was taken.
    final class Counting: BrowseProvider {
        let inner: CatalogProvider
        let wholeLists = Mutex(0)
        init(_ inner: CatalogProvider) { self.inner = inner }
        func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] { [] }
        func item(id: String) async throws -> BrowseItem? { nil }
        var supportsSearch: Bool { true }
        func search(query: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
            wholeLists.withLock { $0 += 1 }
            return try await inner.search(query: query, page: page, pageSize: pageSize)
        }
        func searchPage(query: String, range: Range<Int>, limit: Int) async throws -> SearchPage? {
            try await inner.searchPage(query: query, range: range, limit: limit)
        }
    }

    @Test func aCountedPageIsThePageOfTheWholeList() async throws {
        try await offThePool {
            // 2500 items: "a" and "e" find more than the core's 2000.
            let catalog = try CatalogSearchIndexTests.provider(items: 2500)
            let counting = Counting(catalog)
            let counted = makeCore(counting)
            let whole = makeCore(Uncounted(inner: catalog))
            let cars = [
                CarProfile.full, CarProfile(maxItemsPerList: 30), CarProfile(maxItemsPerList: 0),
                CarProfile(maxItemsPerList: 2400), CarProfile(maxItemsPerList: 5, errorRendering: .legacy),
            ]
            for query in ["a", "e", "midnight", "beyonce 1", "zzz", "  ", "ह", "déjà vu"] {
                for car in cars {
                    for (page, pageSize) in [(0, 0), (0, 7), (3, 7), (1, 500), (4, 500), (-1, 10), (Int.max, 10), (0, 2000)] {
                        let fromPage = await counted.search(query, page: page, pageSize: pageSize, for: car)
                        let fromWhole = await whole.search(query, page: page, pageSize: pageSize, for: car)
                        #expect(fromPage == fromWhole, "'\(query)' page \(page) of \(pageSize), \(String(describing: car.maxItemsPerList))")
                    }
                }
            }
            #expect(await counted.reports == whole.reports)
            #expect(await counted.reports.contains { $0.code == BrowseReportCode.listCut })
            #expect(counting.wholeLists.withLock { $0 } == 0)
        }
    }
}
