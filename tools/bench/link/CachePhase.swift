import DashportBenchSupport
import DashportBrowse
import DashportServer
import Foundation

/// A provider that answers like the demo catalog, but only after `delay`: a music server that is
/// still starting, or far away.
struct SlowProvider: BrowseProvider {
    let catalog: CatalogProvider
    let delay: Duration

    func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        try await Task.sleep(for: delay)
        return try await catalog.children(of: parentId, page: page, pageSize: pageSize)
    }

    func item(id: String) async throws -> BrowseItem? {
        try await Task.sleep(for: delay)
        return try await catalog.item(id: id)
    }
}

/// The root from the disk cache with a slow provider. `DashportServer.start` always builds the
/// demo `CatalogProvider` (which answers in microseconds), so a slow provider cannot be put
/// behind a real connect; this times the browse core alone, built as the server builds it (default
/// ``BrowseConfiguration``, a ``BrowseCache`` on the connect phase's warm cache directory).
struct CacheRuns {
    var fastFirst: [Double] = []
    var slowFirst: [Double] = []
    var slowLater: [Double] = []
    var slowFromCache = true
    static let delay: Duration = .seconds(1)

    /// Copies the warm cache once, so the running server's own files are never touched.
    static func prepare(stateDirectory: String, into directory: String) throws -> (cache: String, catalog: CatalogProvider) {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.copyItem(atPath: stateDirectory + "/browse-cache", toPath: directory)
        return (directory, try CatalogProvider(contentsOf: try DemoLibrary.catalogPath()))
    }

    /// One run of each: a fresh core (cache loaded from disk on its first request) per case.
    mutating func run(cache directory: String, catalog: CatalogProvider) async {
        func root(_ core: BrowseCore) async -> (Double, BrowseAnswer) {
            let start = ContinuousClock.now
            let answer = await core.children(of: BrowseItem.rootId, page: 0, pageSize: 50, for: .full)
            return (milliseconds(ContinuousClock.now - start), answer)
        }
        let fast = BrowseCore(provider: catalog, cache: BrowseCache(directory: directory))
        fastFirst.append(await root(fast).0)

        let slow = BrowseCore(provider: SlowProvider(catalog: catalog, delay: Self.delay), cache: BrowseCache(directory: directory))
        let (first, answer) = await root(slow)
        slowFirst.append(first)
        slowLater.append(await root(slow).0)
        if case .items(let items, _, let fromCache) = answer, fromCache, !items.isEmpty {} else { slowFromCache = false }
    }
}
