// Sources/DashportBrowse/CatalogProvider.swift - the embedded provider: a browse tree from a JSON catalog.

import Foundation

/// Serves a JSON catalog (the format is described in Catalog.swift), such as the demo library in
/// `Fixtures/demo/catalog.json`, so `dashport serve` shows something real at once.
///
/// The whole catalog is validated at load (ids, titles, flags, completion, child references,
/// cycles, artwork files) and held in memory; every list is resolved once, so a browse is a
/// dictionary lookup. The provider does not apply car rules (the browse core does): the demo's
/// fifth root entry and its playable-only root entry are passed on for the core to reject.
/// Opening an item that carries an `error` throws that ``BrowseError`` (the demo's "Locked"
/// podcasts show one of each code), which the core turns into the screen a car can draw.
public struct CatalogProvider: BrowseProvider {
    /// The catalog file this was loaded from.
    public let path: String
    private let catalog: Catalog

    /// Loads and validates the catalog at `path`; a bad one is refused with the file, the item
    /// and the problem.
    public init(contentsOf path: String) throws(CatalogError) {
        self.path = path
        self.catalog = try CatalogLoader.load(path: path)
    }

    /// The catalog's title (the name of the library).
    public var title: String { catalog.title }
    /// How many items the catalog has (the root not counted).
    public var itemCount: Int { catalog.items.count }

    /// The children of `parentId`, paged; throws the item's ``BrowseError`` when it carries one.
    public func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        if let error = catalog.errors[parentId] { throw error }
        guard let list = catalog.children[parentId] else { return [] }
        return Self.page(list, page: page, pageSize: pageSize)
    }

    public func item(id: String) async throws -> BrowseItem? {
        if id == BrowseItem.rootId {
            return BrowseItem(id: BrowseItem.rootId, title: catalog.title, browsable: true, mediaType: .folder)
        }
        return catalog.items[id]
    }

    public var supportsSearch: Bool { true }

    /// Items (other than the root's entries) whose title, artist or album contains `query`,
    /// ignoring case and diacritics, in catalog order. A blank query finds nothing.
    public func search(query: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        let needle = CatalogLoader.fold(query.trimmingCharacters(in: .whitespacesAndNewlines))
        guard !needle.isEmpty else { return [] }
        let found = catalog.searchable.lazy
            .filter { entry in entry.haystack.contains { $0.contains(needle) } }
            .map(\.item)
        return Self.page(Array(found), page: page, pageSize: pageSize)
    }

    private static func page(_ list: [BrowseItem], page: Int, pageSize: Int) -> [BrowseItem] {
        guard page >= 0, pageSize > 0 else { return [] }
        let (start, overflow) = page.multipliedReportingOverflow(by: pageSize)
        guard !overflow, start < list.count else { return [] }
        return Array(list[start..<(list.count - start > pageSize ? start + pageSize : list.count)])
    }
}
