// Sources/DashportBrowse/CatalogProvider.swift - the embedded provider: a browse tree from a JSON catalog.

import FoundationEssentials
import Glibc
import Synchronization

/// Serves a JSON catalog (the format: <doc:CatalogFormat>), such as the demo library in
/// `Fixtures/demo/catalog.json`, so `dashport serve` shows something real at once.
///
/// The whole catalog is validated at load (ids, titles, flags, completion, child references,
/// cycles, artwork files) and held in memory; every list is resolved once, so a browse is a
/// dictionary lookup. The provider does not apply car rules (the browse core does): the demo's
/// fifth root entry and its playable-only root entry are passed on for the core to reject.
/// Opening an item that carries an `error` throws that ``BrowseError`` (the demo's "Locked"
/// podcasts show one of each code), which the core turns into the screen a car can draw.
///
/// The catalog can be loaded later than the provider is made (``init(path:)`` then ``load()``):
/// until it is, requests wait for it, so the browse core answers cars from its disk cache (after
/// its answer budget) and refreshes every cached parent once the catalog is in. ``load()`` again
/// re-reads the file: a bad edit is refused and the previous catalog keeps serving; a good one
/// replaces it and says which parents' children changed.
public final class CatalogProvider: BrowseProvider {
    /// The catalog file this was loaded from.
    public let path: String
    private let state: Mutex<State>

    private struct State {
        var catalog: Catalog?
        /// Requests made before the first load, resumed once it ends.
        var waiters: [CheckedContinuation<Catalog?, Never>] = []
        /// Whether a first load is still expected (false once one ended, well or not).
        var pending = true
    }

    /// Thrown by requests while no catalog is loaded (the first load failed): to the browse core,
    /// a provider that is not up.
    public struct NotLoaded: Error, CustomStringConvertible {
        public var path: String
        public var description: String { "the catalog \(path) is not loaded" }
    }

    /// Loads and validates the catalog at `path`; a bad one is refused with the file, the item
    /// and the problem.
    public init(contentsOf path: String) throws(CatalogError) {
        self.path = path
        self.state = Mutex(State(catalog: try CatalogLoader.load(path: path), pending: false))
    }

    /// A provider whose catalog is not loaded yet: requests wait until ``load()`` ends.
    public init(path: String) {
        self.path = path
        self.state = Mutex(State())
    }

    /// Reads and validates the file again. A catalog that fails validation is refused (thrown, with
    /// the file, the item and the problem) and the previous one keeps serving; one that passes
    /// replaces it. Returns what changed.
    @discardableResult
    public func load() throws(CatalogError) -> CatalogChange {
        let loaded: Catalog
        do throws(CatalogError) {
            loaded = try CatalogLoader.load(path: path)
        } catch {
            let waiters = state.withLock { state in
                defer {
                    state.waiters = []
                    state.pending = false
                }
                return state.waiters
            }
            waiters.forEach { $0.resume(returning: nil) }
            throw error
        }
        let (old, waiters) = state.withLock { state in
            defer {
                state.catalog = loaded
                state.waiters = []
                state.pending = false
            }
            return (state.catalog, state.waiters)
        }
        waiters.forEach { $0.resume(returning: loaded) }
        return CatalogChange(
            changedParents: Catalog.changedParents(from: old, to: loaded), itemCount: loaded.store.count,
            firstLoad: old == nil)
    }

    /// How many requests wait for the first load now (for tests: a request is known to wait).
    var waitingRequests: Int { state.withLock { $0.waiters.count } }

    /// Whether a catalog is loaded (false before the first ``load()`` ends, or when it failed).
    public var isLoaded: Bool { state.withLock { $0.catalog != nil } }

    /// The catalog's title (the name of the library); empty before it is loaded.
    public var title: String { state.withLock { $0.catalog?.title ?? "" } }
    /// How many items the catalog has (the root not counted).
    public var itemCount: Int { state.withLock { $0.catalog?.store.count ?? 0 } }

    /// The loaded catalog, waiting for the first load if it has not ended yet.
    private func catalog() async throws -> Catalog {
        enum Now {
            case ready(Catalog)
            case wait, missing
        }
        let now = state.withLock { state -> Now in
            if let catalog = state.catalog { return .ready(catalog) }
            return state.pending ? .wait : .missing
        }
        switch now {
        case .ready(let catalog): return catalog
        case .missing: throw NotLoaded(path: path)
        case .wait: break
        }
        let waited = await withCheckedContinuation { (waiter: CheckedContinuation<Catalog?, Never>) in
            let resumeNow = state.withLock { state -> Catalog?? in
                if let catalog = state.catalog { return .some(catalog) }
                guard state.pending else { return .some(nil) }
                state.waiters.append(waiter)
                return .none
            }
            if let resumeNow { waiter.resume(returning: resumeNow) }
        }
        guard let waited else { throw NotLoaded(path: path) }
        return waited
    }

    /// The children of `parentId`, paged; throws the item's ``BrowseError`` when it carries one.
    public func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        let catalog = try await catalog()
        if let error = catalog.store.error(of: parentId) { throw error }
        let list = catalog.store.children(of: parentId)
        return Self.page(list.count, page: page, pageSize: pageSize).map { catalog.store.child(list.lowerBound + $0) }
    }

    public func item(id: String) async throws -> BrowseItem? {
        let catalog = try await catalog()
        if id == BrowseItem.rootId {
            return BrowseItem(id: BrowseItem.rootId, title: catalog.title, browsable: true, mediaType: .folder)
        }
        return catalog.store.position(of: id).map { catalog.store.item(at: $0) }
    }

    public var supportsSearch: Bool { true }

    /// Items (other than the root's entries) whose title, artist or album contains `query`,
    /// ignoring case and diacritics, in catalog order. A blank query finds nothing. Answered from
    /// the index built at load (`CatalogSearchIndex`), reading no further than the page asked for.
    public func search(query: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        let catalog = try await catalog()
        let needle = CatalogLoader.fold(String(query.trimming(while: \.isWhitespace)))
        guard !needle.isEmpty, page >= 0, pageSize > 0 else { return [] }
        let (pages, tooMany) = page.addingReportingOverflow(1)
        let (end, overflow) = pages.multipliedReportingOverflow(by: pageSize)
        let found = catalog.searchable.matches(needle, limit: tooMany || overflow ? Int.max : end)
        return Self.page(found.count, page: page, pageSize: pageSize).map { catalog.item(searched: found[$0]) }
    }

    /// ``search(query:page:pageSize:)``'s results at `range`, and how many there are up to
    /// `limit`: the index finds the positions, items are made only for the page.
    public func searchPage(query: String, range: Range<Int>, limit: Int) async throws -> SearchPage? {
        let catalog = try await catalog()
        let needle = CatalogLoader.fold(String(query.trimming(while: \.isWhitespace)))
        guard !needle.isEmpty, limit > 0 else { return SearchPage(items: [], total: 0) }
        let (found, total) = catalog.searchable.search(needle, limit: limit, keep: max(0, range.upperBound))
        let page = range.clamped(to: 0..<found.count)
        return SearchPage(items: page.map { catalog.item(searched: found[$0]) }, total: total)
    }

    /// The search as it was before the index (every item compared), for tests to hold the index
    /// to and for `dashport-bench-search` to measure it against.
    @_spi(SearchReference) public func linearSearch(query: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        let catalog = try await catalog()
        let needle = CatalogLoader.fold(String(query.trimming(while: \.isWhitespace)))
        let found = catalog.searchable.linearMatches(needle)
        return Self.page(found.count, page: page, pageSize: pageSize).map { catalog.item(searched: found[$0]) }
    }

    /// Which of a list of `count` items page `page` of `pageSize` holds (items are made only for it).
    private static func page(_ count: Int, page: Int, pageSize: Int) -> Range<Int> {
        guard page >= 0, pageSize > 0 else { return 0..<0 }
        let (start, overflow) = page.multipliedReportingOverflow(by: pageSize)
        guard !overflow, start < count else { return 0..<0 }
        return start..<(count - start > pageSize ? start + pageSize : count)
    }
}

/// What a (re)load of the catalog changed.
public struct CatalogChange: Sendable, Hashable {
    /// The parents (the root included, as ``BrowseItem/rootId``) whose children a car would now
    /// see differently: a list added, removed or changed (an entry added, removed, moved, or one of
    /// its fields edited), or an error screen added, removed or changed. Sorted.
    public var changedParents: [String]
    /// How many items the new catalog has.
    public var itemCount: Int
    /// Whether this was the first load (then every parent is new and nothing needs telling).
    public var firstLoad: Bool
}

extension Catalog {
    /// The item at `position` of the search index.
    func item(searched position: Int) -> BrowseItem { store.item(at: Int(searchPositions[position])) }

    /// The parents whose children (or error screen) differ between `old` and `new` (a missing list
    /// and an empty one are the same: an unknown parent is an empty list); every non-empty parent
    /// of `new` when there was no `old`. Lists are compared item by item, as a car would get them.
    static func changedParents(from old: Catalog?, to new: Catalog) -> [String] {
        let parents = Set(new.store.parents).union(old?.store.parents ?? [])
        return parents.filter { parent in
            let before = old?.store.children(of: parent) ?? 0..<0
            let after = new.store.children(of: parent)
            let same =
                before.count == after.count
                && zip(before, after).allSatisfy { pair in old?.store.child(pair.0) == new.store.child(pair.1) }
            return !same || old?.store.error(of: parent) != new.store.error(of: parent)
        }.sorted()
    }
}
