// Sources/DashportBrowse/BrowseCore.swift - the one browse tree every car sees, through its own rules.

public import DashportLog

/// The browse core: asks the provider, applies each car's rules, caches on disk, pushes changes.
///
/// Every car's service calls it with the car's ``CarProfile``; the answer is already cut to what
/// that car may see (``BrowseRules``). Cars that connect while the provider is slow (past
/// ``BrowseConfiguration/answerBudget``) or not up (it throws something other than a
/// ``BrowseError``) get the cached node at once (`fromCache: true`); once the provider answers
/// again, every cached parent is refreshed and each one whose children changed is pushed as
/// ``BrowseNotification/childrenChanged(parentId:)`` to every subscriber.
///
/// Each distinct ``BrowseReport`` is emitted once (logged, kept in ``reports``, pushed to
/// subscribers) until the next ``invalidate(_:)``, so fifty cars opening the same bad list make
/// one report, not fifty.
public actor BrowseCore {
    public nonisolated let provider: any BrowseProvider
    public nonisolated let cache: BrowseCache?
    public nonisolated let configuration: BrowseConfiguration
    let logger: Logger

    // What the core has learned from browsing (and from the cache at start).
    var depths: [String: Int] = [BrowseItem.rootId: 0]
    var parents: [String: String] = [:]

    // Provider health and in-flight calls.
    var degraded = false
    var refreshTask: Task<Void, Never>?
    var inFlight: [String: ProviderCall<[BrowseItem]>] = [:]
    /// Parents a car got no list for, and the provider call still awaited for each (``pushWhenAnswered(_:_:)``).
    var lateAnswers: [String: ProviderCall<[BrowseItem]>] = [:]
    var startTask: Task<Void, Never>?
    var started = false

    // Subscribers and reports.
    /// Streams from ``subscribe()`` and handlers from ``subscribe(_:)``.
    var subscribers: [Int: Subscriber] = [:]
    var nextSubscriber = 0
    var reported: Set<BrowseReport> = []
    var recentReports: [BrowseReport] = []

    public init(
        provider: any BrowseProvider,
        cache: BrowseCache? = nil,
        configuration: BrowseConfiguration = BrowseConfiguration(),
        logger: Logger = .silent
    ) {
        self.provider = provider
        self.cache = cache
        self.configuration = configuration
        self.logger = logger.labelled("browse")
    }

    /// Whether the provider can search. Without it the car's profile answer has no search tab and
    /// a voice "play X" is answered `notSupported`.
    public nonisolated var supportsSearch: Bool { provider.supportsSearch }

    /// One page of the children of `parentId` as `car` may see them. An unknown parent is an empty
    /// list; a provider's ``BrowseError`` is a screen, or an empty list for a car that cannot draw it.
    public func children(of parentId: String, page: Int, pageSize: Int, for car: CarProfile) async -> BrowseAnswer {
        await childrenReporting(of: parentId, page: page, pageSize: pageSize, for: car).answer
    }

    /// ``children(of:page:pageSize:for:)`` with the reports this answer made for this car's profile
    /// (``BrowseReport/isCarSpecific``: dropped tabs, cut branches), every time, not once: the
    /// caller tells the car that asked. The core's own log and ``reports`` still take each once.
    public func childrenReporting(of parentId: String, page: Int, pageSize: Int, for car: CarProfile) async
        -> (answer: BrowseAnswer, carReports: [BrowseReport])
    {
        await startIfNeeded()
        if let limit = car.depthLimit, let depth = depths[parentId], depth >= limit {
            let report = BrowseReport(
                code: BrowseReportCode.depthCut,
                message: "children of '\(parentId)' (depth \(depth)) asked for, beyond the car's max depth \(limit): empty list",
                itemId: parentId)
            emit(report)
            return (.empty, [report])
        }
        let raw: [BrowseItem]
        let fromCache: Bool
        switch await fetchChildren(of: parentId) {
        case .fresh(let items): (raw, fromCache) = (items, false)
        case .cached(let items): (raw, fromCache) = (items, true)
        case .failed(let error): return (render(error, for: car), [])
        case .unavailable: return (.unavailable, [])
        }
        learn(raw, under: parentId)
        let (items, reports) = BrowseRules.children(raw, of: parentId, parentDepth: depths[parentId], for: car)
        reports.forEach { emit($0) }
        var answer = BrowseRules.page(items, page: page, pageSize: configuration.pageSize(pageSize), fromCache: fromCache)
        if !fromCache { answer = await withArtwork(answer, in: parentId) }
        return (answer, reports.filter(\.isCarSpecific))
    }

    /// One item as `car` may see it (checked and depth-cut), or nil when there is none, it is
    /// invalid, or the provider answered with a ``BrowseError``. Falls back to the cached copy when
    /// the provider is not up.
    public func item(id: String, for car: CarProfile) async -> BrowseItem? {
        await itemReporting(id: id, for: car).item
    }

    /// ``item(id:for:)`` with the reports it made for this car's profile (a cut branch), every time.
    public func itemReporting(id: String, for car: CarProfile) async -> (item: BrowseItem?, carReports: [BrowseReport]) {
        await startIfNeeded()
        var found: BrowseItem?
        if degraded, let cached = await cache?.item(id: id) {
            found = cached
        } else {
            let provider = self.provider
            let call = ProviderCall { try await provider.item(id: id) }
            switch await call.wait(timeout: configuration.providerTimeout, clock: configuration.clock) {
            case .answered(.success(let item)): found = item
            case .answered(.failure(let error)) where error is BrowseError: return (nil, [])
            case .answered(.failure(let error)):
                providerFailed("failed (\(error))")
                found = await cache?.item(id: id)
            case .timedOut:
                providerFailed("did not answer within \(configuration.providerTimeout)")
                found = await cache?.item(id: id)
            }
        }
        guard let found else { return (nil, []) }
        let (item, reports) = BrowseRules.single(found, depth: depths[id], for: car)
        reports.forEach { emit($0) }
        return (item, reports.filter(\.isCarSpecific))
    }

    /// How deep `id` is (root 0, a tab 1), as far as the core has seen it browsed; nil when unknown.
    /// An item reachable on several paths has the shallowest depth seen.
    public func depth(of id: String) -> Int? { depths[id] }

    /// The queue for a play-from-media-id: the playable, valid children of the parent the item
    /// was last listed under, and the item's index among them. Nil when the core has not seen the
    /// item listed (or saw it only at the root), or the parent no longer holds it.
    public func siblings(of mediaId: String) async -> (items: [BrowseItem], index: Int)? {
        await startIfNeeded()
        guard let parentId = parents[mediaId], parentId != BrowseItem.rootId else { return nil }
        let raw: [BrowseItem]
        switch await fetchChildren(of: parentId) {
        case .fresh(let items), .cached(let items): raw = items
        case .failed, .unavailable: return nil
        }
        let playable = BrowseRules.validated(raw, in: parentId).0.filter(\.playable)
        guard let index = playable.firstIndex(where: { $0.id == mediaId }) else { return nil }
        return (playable, index)
    }

    /// Forgets the cached children of `parentId` (of everything when nil) and tells every
    /// subscriber they changed. With no subscriber it only deletes cache files.
    public func invalidate(_ parentId: String?) async {
        await startIfNeeded()
        if let parentId {
            inFlight[parentId] = nil
            lateAnswers[parentId] = nil
            (await cache?.remove(parentId) ?? []).forEach { emit($0) }
        } else {
            inFlight.removeAll()
            lateAnswers.removeAll()
            (await cache?.removeAll() ?? []).forEach { emit($0) }
        }
        reported.removeAll()
        broadcast(.childrenChanged(parentId: parentId))
    }

    /// The most recent reports (at most 256), oldest first.
    public var reports: [BrowseReport] { recentReports }

    // MARK: - Helpers

    /// The page with the covers the provider finds for its rows that have none
    /// (``BrowseProvider/artwork(for:in:)``), within the provider timeout; as it is when the
    /// provider is slower (its look-up goes on, so the next request may find them).
    private func withArtwork(_ answer: BrowseAnswer, in parentId: String) async -> BrowseAnswer {
        guard case .items(var rows, let total, let fromCache) = answer else { return answer }
        let bare = rows.filter { $0.artworkUri == nil }
        guard !bare.isEmpty else { return answer }
        let provider = self.provider
        let call = ProviderCall { await provider.artwork(for: bare, in: parentId) }
        guard case .answered(.success(let found)) = await call.wait(timeout: configuration.providerTimeout, clock: configuration.clock),
            !found.isEmpty
        else { return answer }
        for index in rows.indices where rows[index].artworkUri == nil {
            rows[index].artworkUri = found[rows[index].id]
        }
        return .items(rows, total: total, fromCache: fromCache)
    }

    func render(_ error: any Error, for car: CarProfile) -> BrowseAnswer {
        guard let error = error as? BrowseError else { return .empty }
        let (answer, report) = BrowseRules.render(error, for: car)
        if let report { emit(report) }
        return answer
    }
}
