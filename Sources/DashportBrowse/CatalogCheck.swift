// Sources/DashportBrowse/CatalogCheck.swift - a catalog validated without serving it
// (`dashport catalog check`).

import FoundationEssentials

/// What a sound catalog holds, as `dashport catalog check` reports it.
public struct CatalogSummary: Sendable, Hashable {
    public var title: String
    /// Items in the file.
    public var items: Int
    /// Entries of the root list (the car's tabs).
    public var rootEntries: Int
    /// Items that open to an error screen.
    public var errorItems: Int
}

public enum CatalogCheck {
    /// Reads and validates the catalog at `path` exactly as `dashport serve` loads it (strict keys
    /// and kinds, ids, children, cycles, artwork files). Throws the first problem, with the file,
    /// the line and column, the item and what is wrong.
    public static func check(path: String) throws(CatalogError) -> CatalogSummary {
        let catalog = try CatalogLoader.load(path: path)
        return CatalogSummary(
            title: catalog.title, items: catalog.store.count, rootEntries: catalog.store.children(of: BrowseItem.rootId).count,
            errorItems: catalog.store.errors.count)
    }

    /// The same for a catalog's bytes, as if read from `path` (artwork resolves next to it): for
    /// the fuzz driver, which checks inputs without writing files.
    package static func check(bytes: [UInt8], path: String) throws(CatalogError) -> CatalogSummary {
        let catalog = try CatalogLoader.parse(bytes, path: path)
        return CatalogSummary(
            title: catalog.title, items: catalog.store.count, rootEntries: catalog.store.children(of: BrowseItem.rootId).count,
            errorItems: catalog.store.errors.count)
    }
}
