// Sources/DashportBrowse/BrowseCore+Fetch.swift - provider or cache, the answer budget, and the refresh.

import DashportLog

extension BrowseCore {
    /// Where a node's children came from.
    enum Fetched {
        case fresh([BrowseItem])
        case cached([BrowseItem])
        case failed(BrowseError)
        /// The provider is not up (or too slow) and nothing is cached.
        case unavailable
    }

    /// The raw children of `parentId`: from the provider when it answers in time, else from the
    /// cache. While the provider is known to be down or slow, cached nodes are answered at once.
    func fetchChildren(of parentId: String) async -> Fetched {
        let cached = await cache?.children(of: parentId)
        if degraded, let cached { return .cached(cached) }
        let call = providerCall(for: parentId)
        let budget = cached == nil ? configuration.providerTimeout : configuration.answerBudget
        switch await call.wait(timeout: budget, clock: configuration.clock) {
        case .answered(let result):
            if inFlight[parentId] === call { inFlight[parentId] = nil }
            switch result {
            case .success(let items):
                let items = cut(items, of: parentId)
                if let cache, items != cached {
                    (await cache.store(items, for: parentId)).forEach { emit($0) }
                }
                return .fresh(items)
            case .failure(let error as BrowseError):
                // The provider's answer is now a screen: never show the old list from the cache again.
                if let cache, cached != nil { (await cache.remove(parentId)).forEach { emit($0) } }
                return .failed(error)
            case .failure(let error):
                providerFailed("failed (\(error))")
                return cached.map(Fetched.cached) ?? .unavailable
            }
        case .timedOut:
            if let cached {
                providerFailed("did not answer '\(parentId)' within the \(configuration.answerBudget) budget")
                return .cached(cached)
            }
            // One line for one hang: this parent's report also says the core is now degraded.
            providerFailed(
                report: BrowseReport(
                    code: BrowseReportCode.providerTimeout,
                    message: "no answer for '\(parentId)' within \(configuration.providerTimeout) and nothing cached: empty list",
                    itemId: parentId))
            pushWhenAnswered(parentId, call)
            return .unavailable
        }
    }

    /// A car was answered with no list for `parentId` (``BrowseAnswer/unavailable``) while `call`
    /// still runs: once the provider answers, the list is cached (the next request gets it even
    /// while the core is degraded) and every subscriber is pushed children-changed for it, so the
    /// car that got the empty list asks again. One watcher per parent; it ends with the call.
    func pushWhenAnswered(_ parentId: String, _ call: ProviderCall<[BrowseItem]>) {
        guard lateAnswers[parentId] == nil else { return }
        lateAnswers[parentId] = call
        let clock = configuration.clock
        Task {
            let outcome = await call.wait(timeout: nil, clock: clock)
            await self.answeredLate(parentId, call, outcome)
        }
    }

    private func answeredLate(_ parentId: String, _ call: ProviderCall<[BrowseItem]>, _ outcome: ProviderCall<[BrowseItem]>.Outcome) async {
        // Invalidated meanwhile (``invalidate(_:)`` forgets it): cars were pushed already, and
        // this answer may be stale.
        guard lateAnswers[parentId] === call else { return }
        lateAnswers[parentId] = nil
        if inFlight[parentId] === call { inFlight[parentId] = nil }
        guard case .answered(.success(let answered)) = outcome else { return }
        let items = cut(answered, of: parentId)
        if let cache, await cache.children(of: parentId) != items {
            (await cache.store(items, for: parentId)).forEach { emit($0) }
        }
        logger.info("the provider answered '\(parentId)' after a car was given an empty list: pushed", ["item": parentId])
        broadcast(.childrenChanged(parentId: parentId))
    }

    /// The in-flight provider call for `parentId`, or a new one. Requests for one node share a call.
    func providerCall(for parentId: String) -> ProviderCall<[BrowseItem]> {
        if let call = inFlight[parentId], !call.isFinished { return call }
        let provider = self.provider
        let size = configuration.maxChildrenPerNode + 1
        let call = ProviderCall { try await provider.children(of: parentId, page: 0, pageSize: size) }
        inFlight[parentId] = call
        return call
    }

    /// Cuts a provider's list to ``BrowseConfiguration/maxChildrenPerNode``.
    private func cut(_ items: [BrowseItem], of parentId: String) -> [BrowseItem] {
        let limit = configuration.maxChildrenPerNode
        guard items.count > limit else { return items }
        emit(
            BrowseReport(
                code: BrowseReportCode.listCut,
                message: "the provider gave more than \(limit) children for '\(parentId)': cut to \(limit)",
                itemId: parentId))
        return Array(items.prefix(limit))
    }

    /// The provider is down or slow: answer from the cache and refresh once it answers again.
    /// `report`, when given, is the report of the request that found it out; the first one says
    /// the core is degraded too, so a fault is one line.
    func providerFailed(_ what: String = "", report: BrowseReport? = nil) {
        guard !degraded else {
            if let report { emit(report) }
            return
        }
        degraded = true
        emit(
            report.map {
                BrowseReport(
                    code: $0.code, message: "\($0.message); answering from the cache until the provider answers again", itemId: $0.itemId)
            }
                ?? BrowseReport(
                    code: BrowseReportCode.providerUnavailable,
                    message: "the provider \(what): answering from the cache until it answers again"))
        if refreshTask == nil {
            refreshTask = Task { await self.refreshWhenProviderAnswers() }
        }
    }

    /// Waits until the provider answers the root (asking again every ``BrowseConfiguration/retryInterval``
    /// while it throws), then refreshes every cached parent and pushes those that changed; starts
    /// over, after the same interval, if the provider fails again on the way. (A root the provider
    /// answers without its backend, as MPD's tabs, must not turn a backend that fails at once into
    /// a loop that asks again without pause.)
    private func refreshWhenProviderAnswers() async {
        var again = false
        repeat {
            if again, !(await pauseBeforeRetry()) { return }
            again = true
            while !(await probeRoot()) {
                guard await pauseBeforeRetry() else { return }
            }
            // What cars may have been shown from the cache: compare against this, not the live
            // cache, which fresh answers start to update as soon as `degraded` is cleared.
            let served = await cache?.allNodes() ?? []
            degraded = false
            await refresh(served)
        } while degraded
        refreshTask = nil
    }

    /// Asks the provider for each node again; stores and pushes each one that changed.
    private func refresh(_ served: [CachedNode]) async {
        var changed = 0
        for node in served {
            let call = providerCall(for: node.parentId)
            let outcome = await call.wait(timeout: configuration.providerTimeout, clock: configuration.clock)
            guard case .answered(let result) = outcome else {
                providerFailed("did not answer '\(node.parentId)' within \(configuration.providerTimeout)")
                return
            }
            if inFlight[node.parentId] === call { inFlight[node.parentId] = nil }
            switch result {
            case .success(let items):
                let items = cut(items, of: node.parentId)
                guard items != node.children else { continue }
                (await cache?.store(items, for: node.parentId) ?? []).forEach { emit($0) }
            case .failure(is BrowseError):
                (await cache?.remove(node.parentId) ?? []).forEach { emit($0) }
            case .failure(let error):
                providerFailed("failed again during the refresh (\(error))")
                return
            }
            changed += 1
            broadcast(.childrenChanged(parentId: node.parentId))
        }
        inFlight = inFlight.filter { !$0.value.isFinished }
        emit(
            BrowseReport(
                code: BrowseReportCode.cacheRefreshed,
                message: "the provider answers again: \(served.count) cached parents refreshed, \(changed) changed"),
            once: false)
    }

    /// Sleeps ``BrowseConfiguration/retryInterval``; false (and the refresh task forgotten) when
    /// cancelled.
    private func pauseBeforeRetry() async -> Bool {
        do {
            try await configuration.clock.sleep(for: configuration.retryInterval)
            return true
        } catch {
            refreshTask = nil
            return false
        }
    }

    /// Whether the provider answers the root now (a ``BrowseError`` is an answer too).
    private func probeRoot() async -> Bool {
        let call = providerCall(for: BrowseItem.rootId)
        let outcome = await call.wait(timeout: configuration.providerTimeout, clock: configuration.clock)
        guard case .answered(let result) = outcome else { return false }
        if inFlight[BrowseItem.rootId] === call { inFlight[BrowseItem.rootId] = nil }
        if case .failure(let error) = result, !(error is BrowseError) { return false }
        return true
    }

    // MARK: - Start and depth

    /// Loads the cache (once) and learns depths and parents from it.
    func startIfNeeded() async {
        if started { return }
        if startTask == nil {
            startTask = Task { await self.loadCache() }
        }
        await startTask?.value
        started = true
    }

    private func loadCache() async {
        guard let cache else { return }
        (await cache.load()).forEach { emit($0) }
        var byParent: [String: [BrowseItem]] = [:]
        for node in await cache.allNodes() { byParent[node.parentId] = node.children }
        // Breadth first, so each node is first reached on its shallowest path.
        var queue = [BrowseItem.rootId]
        var next = 0
        while next < queue.count {
            let parentId = queue[next]
            next += 1
            guard let children = byParent.removeValue(forKey: parentId) else { continue }
            learn(children, under: parentId)
            queue += children.map(\.id)
        }
        // Nodes not reachable from a cached root: parents only, depth unknown.
        for (parentId, children) in byParent { learn(children, under: parentId) }
    }

    /// Remembers each child's parent, and its depth when the parent's is known (the shallowest wins).
    func learn(_ children: [BrowseItem], under parentId: String) {
        if parents.count + children.count > configuration.maxTrackedItems {
            parents.removeAll(keepingCapacity: true)
            depths = [BrowseItem.rootId: 0]
        }
        let childDepth = depths[parentId].map { $0 + 1 }
        for child in children where !child.id.isEmpty && child.id != BrowseItem.rootId {
            parents[child.id] = parentId
            if let childDepth, depths[child.id].map({ childDepth < $0 }) ?? true {
                depths[child.id] = childDepth
            }
        }
    }
}
