// Sources/DashportBrowse/BrowseRules.swift - the car rules every browse answer goes through.

/// The rules that turn a provider's list into what one car may see. Pure functions: the core
/// calls them on every answer (fresh or cached), and adapters may call them too.
///
/// Depth: the root is 0, a tab 1, a tab's children 2, and so on. With a car max depth `N`, a
/// list at depth `N` is still sent, but its items cannot be opened: a browsable item there is
/// sent with `browsable = false` when it is also playable (a tap still plays it) and dropped when
/// it is not; and a request for the children of a parent at depth `N` or deeper is an empty list.
/// Every cut is reported `browseDepthCut`. Depth comes from what the core has seen cars browse
/// (and from the disk cache); a parent whose depth is unknown is not cut.
public enum BrowseRules {
    /// Why `item` may not be sent, or nil when it may: it needs a non-empty id, a title that is not
    /// blank, at least one of browsable and playable, and a completion (if any) within 0…1.
    public static func problem(with item: BrowseItem) -> String? {
        if item.id.isEmpty { return "empty id" }
        if item.title.allSatisfy(\.isWhitespace) { return "empty title" }
        if !item.browsable && !item.playable { return "neither browsable nor playable" }
        if let completion = item.completion, !(0...1).contains(completion) {
            return "completion \(completion) is outside 0…1"
        }
        return nil
    }

    /// The children of `parentId` as `car` may see them, and a report for everything dropped or cut.
    ///
    /// Order: invalid items and repeated ids are dropped (`browseItemInvalid`); at the root,
    /// entries that are not browsable, then entries over the tab cap, are dropped
    /// (`browseRootRejected`); below it, the depth cut applies (`browseDepthCut`) and the list is
    /// cut to the car's `maxItemsPerList` (`browseListCut`).
    public static func children(
        _ items: [BrowseItem], of parentId: String, parentDepth: Int?, for car: CarProfile
    ) -> (items: [BrowseItem], reports: [BrowseReport]) {
        var (kept, reports) = validated(items, in: parentId)
        if parentId == BrowseItem.rootId {
            kept = rootTabs(kept, cap: car.tabCap, reports: &reports)
            return (kept, reports)
        }
        if let limit = car.depthLimit, let parentDepth, parentDepth + 1 >= limit {
            kept = kept.compactMap { item in
                guard item.browsable else { return item }
                let action = item.playable ? "sent as playable only" : "dropped"
                reports.append(
                    BrowseReport(
                        code: BrowseReportCode.depthCut,
                        message: "'\(item.title)' (\(item.id)) is at depth \(parentDepth + 1), the car's max depth: \(action)",
                        itemId: item.id))
                guard item.playable else { return nil }
                var cut = item
                cut.browsable = false
                cut.childStyle = nil
                return cut
            }
        }
        kept = capped(kept, of: "'\(parentId)'", itemId: parentId, limit: car.maxItemsPerList, reports: &reports)
        return (kept, reports)
    }

    /// Search results as `car` may see them: validated and cut to its list limit (no tab or depth rule).
    public static func searchResults(
        _ items: [BrowseItem], query: String, for car: CarProfile
    ) -> (items: [BrowseItem], reports: [BrowseReport]) {
        var (kept, reports) = validated(items, in: "search '\(query)'")
        kept = capped(kept, of: "search '\(query)'", itemId: nil, limit: car.maxItemsPerList, reports: &reports)
        return (kept, reports)
    }

    /// One item as `car` may see it at `depth` (nil when unknown), or nil when it is invalid.
    public static func single(
        _ item: BrowseItem, depth: Int?, for car: CarProfile
    ) -> (item: BrowseItem?, reports: [BrowseReport]) {
        if let problem = problem(with: item) {
            return (nil, [invalid(item, problem, in: nil)])
        }
        guard item.browsable, let limit = car.depthLimit, let depth, depth >= limit else { return (item, []) }
        let report = BrowseReport(
            code: BrowseReportCode.depthCut,
            message: "'\(item.title)' (\(item.id)) is at depth \(depth), the car's max depth: "
                + (item.playable ? "sent as playable only" : "dropped"),
            itemId: item.id)
        guard item.playable else { return (nil, [report]) }
        var cut = item
        cut.browsable = false
        cut.childStyle = nil
        return (cut, [report])
    }

    /// How `error` reaches `car`: its screen when the car can draw the code, else an empty list
    /// and a `browseErrorHidden` report.
    public static func render(_ error: BrowseError, for car: CarProfile) -> (answer: BrowseAnswer, report: BrowseReport?) {
        if car.errorRendering.drawnCodes.contains(error.code) { return (.error(error), nil) }
        let report = BrowseReport(
            code: BrowseReportCode.errorHidden,
            message: "a \(car.errorRendering.rawValue) car cannot draw \(error.code.rawValue): sent an empty list")
        return (.empty, report)
    }

    /// Page `page` (0-based) of `pageSize` items of `items`; `total` is `items.count`.
    public static func page(_ items: [BrowseItem], page: Int, pageSize: Int, fromCache: Bool) -> BrowseAnswer {
        let size = max(1, pageSize)
        let (start, overflow) = max(0, page).multipliedReportingOverflow(by: size)
        guard page >= 0, !overflow, start < items.count else {
            return .items([], total: items.count, fromCache: fromCache)
        }
        let end = items.count - start > size ? start + size : items.count
        return .items(Array(items[start..<end]), total: items.count, fromCache: fromCache)
    }

    // MARK: - Steps

    /// Drops invalid items and later repeats of an id.
    static func validated(_ items: [BrowseItem], in list: String) -> ([BrowseItem], [BrowseReport]) {
        var kept: [BrowseItem] = []
        kept.reserveCapacity(items.count)
        var reports: [BrowseReport] = []
        var seen = Set<String>()
        for item in items {
            if let problem = problem(with: item) {
                reports.append(invalid(item, problem, in: list))
            } else if !seen.insert(item.id).inserted {
                reports.append(invalid(item, "repeats an id already in the list", in: list))
            } else {
                kept.append(item)
            }
        }
        return (kept, reports)
    }

    private static func rootTabs(_ items: [BrowseItem], cap: Int, reports: inout [BrowseReport]) -> [BrowseItem] {
        var tabs: [BrowseItem] = []
        for item in items {
            if !item.browsable {
                reports.append(
                    BrowseReport(
                        code: BrowseReportCode.rootRejected,
                        message: "root entry '\(item.title)' (\(item.id)) dropped: not browsable (tabs must open)",
                        itemId: item.id))
            } else if tabs.count >= cap {
                reports.append(
                    BrowseReport(
                        code: BrowseReportCode.rootRejected,
                        message: "root entry '\(item.title)' (\(item.id)) dropped: over the cap of \(cap) tabs",
                        itemId: item.id))
            } else {
                tabs.append(item)
            }
        }
        return tabs
    }

    private static func capped(
        _ items: [BrowseItem], of list: String, itemId: String?, limit: Int?, reports: inout [BrowseReport]
    ) -> [BrowseItem] {
        let keep = capped(items.count, of: list, itemId: itemId, limit: limit, reports: &reports)
        return keep < items.count ? Array(items.prefix(keep)) : items
    }

    /// How many of a list of `count` items the car shows (at most `limit`), reporting the cut.
    static func capped(_ count: Int, of list: String, itemId: String?, limit: Int?, reports: inout [BrowseReport]) -> Int {
        guard let limit, count > max(0, limit) else { return count }
        let keep = max(0, limit)
        reports.append(
            BrowseReport(
                code: BrowseReportCode.listCut,
                message: "list \(list) has \(count) items, the car shows \(keep): \(count - keep) cut",
                itemId: itemId))
        return keep
    }

    private static func invalid(_ item: BrowseItem, _ problem: String, in list: String?) -> BrowseReport {
        let name = item.id.isEmpty ? "an item titled '\(item.title)'" : "item '\(item.id)'"
        let place = list.map { " in \($0)" } ?? ""
        return BrowseReport(
            code: BrowseReportCode.itemInvalid,
            message: "\(name)\(place) dropped: \(problem)",
            itemId: item.id.isEmpty ? nil : item.id)
    }
}
