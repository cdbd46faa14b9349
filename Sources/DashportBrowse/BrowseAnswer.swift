import DashportClock

/// The answer to a browse or search request: one page of items, or an error screen.
public enum BrowseAnswer: Sendable, Hashable {
    /// One page. `total` is how many items the whole list has after the car's rules, before
    /// paging. `fromCache` says the list came from the disk cache because the provider was slow
    /// or not up; a children-changed push follows once the provider answers with something else.
    case items([BrowseItem], total: Int, fromCache: Bool)
    /// A screen the car draws instead of a list (only codes the car can draw get here).
    case error(BrowseError)

    /// The items of an `.items` answer, or an empty array.
    public var items: [BrowseItem] {
        if case .items(let items, _, _) = self { return items }
        return []
    }

    /// An empty, fresh list.
    public static let empty = BrowseAnswer.items([], total: 0, fromCache: false)

    /// No list: the provider did not answer (in time, or at all) and nothing is cached. Empty and
    /// not fresh (`fromCache: true`), so no memo keeps it and the next request asks again.
    public static let unavailable = BrowseAnswer.items([], total: 0, fromCache: true)
}
