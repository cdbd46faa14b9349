// Sources/DashportBrowse/BrowseCore+Search.swift - a page of search results, made only for the page when the provider can count.

extension BrowseCore {
    /// One page of search results as `car` may see them. Without provider search the answer is
    /// `notSupported` (an empty list for a car that cannot draw it).
    ///
    /// The list is what the provider finds, first ``BrowseConfiguration/maxChildrenPerNode`` of
    /// it, invalid items and repeated ids dropped, cut to the car's `maxItemsPerList`; the answer
    /// is one page of it and its length. A provider that can count its results
    /// (``BrowseProvider/searchPage(query:range:limit:)``, the catalog) makes only the page asked
    /// for; any other is asked for the whole list and the core pages it.
    public func search(_ query: String, page: Int, pageSize: Int, for car: CarProfile) async -> BrowseAnswer {
        await startIfNeeded()
        let size = configuration.pageSize(pageSize)
        let limit = configuration.maxChildrenPerNode
        let shown = car.maxItemsPerList.map { min(limit, max(0, $0)) } ?? limit
        let (start, overflow) = max(0, page).multipliedReportingOverflow(by: size)
        let first = page < 0 || overflow ? shown : min(start, shown)
        let wanted = first..<(shown - first > size ? first + size : shown)
        let provider = self.provider
        let counted: SearchPage??
        do {
            counted = try await askForSearch(query) {
                try await provider.searchPage(query: query, range: wanted, limit: limit)
            }
        } catch {
            return render(error, for: car)
        }
        switch counted {
        case .none: return .empty  // failed or timed out (reported)
        case .some(.some(let found)):
            if let answer = answer(found, query: query, wanted: wanted, for: car) { return answer }
        case .some(.none): break  // the provider cannot count: the whole list
        }
        let results: [BrowseItem]
        do {
            results = try await searchProvider(query)
        } catch {
            return render(error, for: car)
        }
        let (items, reports) = BrowseRules.searchResults(results, query: query, for: car)
        reports.forEach { emit($0) }
        return BrowseRules.page(items, page: page, pageSize: size, fromCache: false)
    }

    /// The answer the whole list would give, from a counted page: nil when the page is not what
    /// was asked for or has an item the rules would drop (then the core asks for the whole list).
    private func answer(_ found: SearchPage, query: String, wanted: Range<Int>, for car: CarProfile) -> BrowseAnswer? {
        let total = min(found.total, configuration.maxChildrenPerNode)
        guard found.items.count == wanted.clamped(to: 0..<max(0, total)).count,
            found.items.allSatisfy({ BrowseRules.problem(with: $0) == nil }),
            Set(found.items.map(\.id)).count == found.items.count
        else { return nil }
        var reports: [BrowseReport] = []
        let shown = BrowseRules.capped(
            total, of: "search '\(query)'", itemId: nil, limit: car.maxItemsPerList, reports: &reports)
        reports.forEach { emit($0) }
        return .items(found.items, total: shown, fromCache: false)
    }

    /// The playable results of a voice "play X", best first, for the session to queue. Throws
    /// `notSupported` when the provider cannot search, or the provider's own ``BrowseError``.
    /// The query goes to the provider as is (an empty query included).
    public func searchForPlay(_ query: String) async throws(BrowseError) -> [BrowseItem] {
        await startIfNeeded()
        let (results, reports) = BrowseRules.validated(try await searchProvider(query), in: "search '\(query)'")
        reports.forEach { emit($0) }
        return results.filter(\.playable)
    }

    /// The provider's whole list for `query` (its first ``BrowseConfiguration/maxChildrenPerNode``),
    /// empty when it failed or did not answer in time.
    private func searchProvider(_ query: String) async throws(BrowseError) -> [BrowseItem] {
        let provider = self.provider
        let size = configuration.maxChildrenPerNode
        let items = try await askForSearch(query) { try await provider.search(query: query, page: 0, pageSize: size) }
        return Array((items ?? []).prefix(size))
    }

    /// Runs one search call with the provider timeout: its value, or nil when it failed (reported)
    /// or did not answer in time (reported); a ``BrowseError`` is thrown, as is `notSupported`
    /// when the provider cannot search.
    private func askForSearch<Value: Sendable>(
        _ query: String, _ body: @escaping @Sendable () async throws -> Value
    ) async throws(BrowseError) -> Value? {
        guard provider.supportsSearch else {
            throw BrowseError(code: .notSupported, message: "This library cannot be searched.")
        }
        switch await ProviderCall(body).wait(timeout: configuration.providerTimeout, clock: configuration.clock) {
        case .answered(.success(let value)): return value
        case .answered(.failure(let error as BrowseError)): throw error
        case .answered(.failure(let error)):
            providerFailed("failed a search (\(error))")
            return nil
        case .timedOut:
            emit(
                BrowseReport(
                    code: BrowseReportCode.providerTimeout,
                    message: "search '\(query)' got no answer within \(configuration.providerTimeout): empty results"))
            return nil
        }
    }
}
