// Tests/DashportBrowseTests/TestSupport.swift - a controllable provider, temp folders.

import DashportTestSupport
import DashportClock
import Foundation
import Synchronization
@testable import DashportBrowse

/// The error a provider that is not up yet throws.
struct ProviderNotUp: Error {}

/// A provider whose tree, errors, health and speed a test controls.
final class FakeProvider: BrowseProvider {
    private struct State {
        var tree: [String: [BrowseItem]]
        var errors: [String: BrowseError] = [:]
        var down = false
        /// Parents that throw ``ProviderNotUp`` while the rest answer (a backend behind the tabs).
        var downParents: Set<String> = []
        var gated = false
        var gateWaiters: [CheckedContinuation<Void, Never>] = []
        var calls: [String] = []
    }

    private let state: Mutex<State>
    private let searchable: Bool

    init(tree: [String: [BrowseItem]], searchable: Bool = false) {
        self.state = Mutex(State(tree: tree))
        self.searchable = searchable
    }

    var supportsSearch: Bool { searchable }
    var calls: [String] { state.withLock { $0.calls } }

    func setTree(_ tree: [String: [BrowseItem]]) { state.withLock { $0.tree = tree } }
    func setError(_ error: BrowseError?, for parentId: String) { state.withLock { $0.errors[parentId] = error } }
    func setDown(_ down: Bool) { state.withLock { $0.down = down } }
    func setDown(_ down: Bool, for parentId: String) {
        state.withLock { state in
            if down { state.downParents.insert(parentId) } else { state.downParents.remove(parentId) }
        }
    }
    /// From now on every call suspends until ``release()``.
    func hold() { state.withLock { $0.gated = true } }
    func release() {
        let waiters = state.withLock { state in
            state.gated = false
            defer { state.gateWaiters = [] }
            return state.gateWaiters
        }
        waiters.forEach { $0.resume() }
    }

    private func gate(_ call: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let pass = state.withLock { state in
                state.calls.append(call)
                if state.gated { state.gateWaiters.append(continuation) }
                return !state.gated
            }
            if pass { continuation.resume() }
        }
    }

    func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        await gate("children:\(parentId)")
        let (down, error, list) = state.withLock {
            ($0.down || $0.downParents.contains(parentId), $0.errors[parentId], $0.tree[parentId] ?? [])
        }
        if down { throw ProviderNotUp() }
        if let error { throw error }
        return Array(list.dropFirst(page * pageSize).prefix(pageSize))
    }

    func item(id: String) async throws -> BrowseItem? {
        await gate("item:\(id)")
        let (down, tree) = state.withLock { ($0.down, $0.tree) }
        if down { throw ProviderNotUp() }
        return tree.values.lazy.flatMap { $0 }.first { $0.id == id }
    }

    func search(query: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        guard searchable else { throw BrowseError(code: .notSupported, message: "no search") }
        let tree = state.withLock { $0.tree }
        let all = tree.keys.sorted().flatMap { tree[$0] ?? [] }
        return all.filter { $0.title.localizedCaseInsensitiveContains(query) }
    }
}

enum Fixtures {
    /// The package root, from this file's path (Tests/DashportBrowseTests/TestSupport.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let demoCatalog = packageRoot + "/Fixtures/demo/catalog.json"

    static func demoProvider() throws -> CatalogProvider {
        try CatalogProvider(contentsOf: demoCatalog)
    }
}

/// Shorthands for building items in tests.
func tab(_ id: String, _ title: String? = nil) -> BrowseItem {
    BrowseItem(id: id, title: title ?? id, browsable: true)
}

func track(_ id: String, _ title: String? = nil) -> BrowseItem {
    BrowseItem(id: id, title: title ?? id, playable: true)
}

/// A core over `provider` with a clock that never moves unless the test moves it.
func makeCore(
    _ provider: any BrowseProvider, cache: BrowseCache? = nil, clock: ManualClock = ManualClock()
) -> BrowseCore {
    BrowseCore(provider: provider, cache: cache, configuration: BrowseConfiguration(clock: clock))
}

extension BrowseAnswer {
    var ids: [String] { items.map(\.id) }
    var total: Int? {
        if case .items(_, let total, _) = self { return total }
        return nil
    }
    var isFromCache: Bool {
        if case .items(_, _, let fromCache) = self { return fromCache }
        return false
    }
}
