// Sources/DashportBrowse/BrowseTypes.swift - what a car tells the browse core, what it gets back, the core's limits.

/// What one car can show, as its profile on the Dashport media channel says.
///
/// The browse core applies it to every answer: the tab cap, the depth cut, the list cap and which
/// error screens are drawn. Out-of-range values are clamped where they are used (see each field).
public struct CarProfile: Sendable, Hashable {
    /// Which ``BrowseError`` screens a car can draw.
    public enum ErrorRendering: String, Sendable, Hashable, CaseIterable {
        /// All five codes.
        case full
        /// Only `authenticationExpired` and `parentalControlRestricted` (what reaches Android Auto
        /// through Media3's error replication); the other three become an empty list.
        case legacy

        /// The codes this car draws as a screen.
        public var drawnCodes: Set<BrowseError.Code> {
            switch self {
            case .full: Set(BrowseError.Code.allCases)
            case .legacy: [.authenticationExpired, .parentalControlRestricted]
            }
        }
    }

    /// The car's tab limit. The root gets at most `min(4, maxRootTabs)` tabs; 0 (or less) means the
    /// default, 4.
    public var maxRootTabs: Int
    /// How deep the car can open lists (root = 0, a tab = 1); nil is unlimited. CarPlay-style cars
    /// say 5. Values below 2 are treated as 2 (a car that could not open a tab would have no browse).
    public var maxDepth: Int?
    /// The most items the car shows in one list; nil is unlimited. Longer lists are cut and reported.
    public var maxItemsPerList: Int?
    /// The cover size the car asks for, in pixels (for the artwork endpoint).
    public var artworkSizePx: Int
    public var errorRendering: ErrorRendering
    /// Whether the car has a search affordance at all.
    public var supportsSearch: Bool
    /// BCP 47 tag, e.g. `en-US`.
    public var locale: String

    public init(
        maxRootTabs: Int = 4,
        maxDepth: Int? = nil,
        maxItemsPerList: Int? = nil,
        artworkSizePx: Int = 256,
        errorRendering: ErrorRendering = .full,
        supportsSearch: Bool = true,
        locale: String = "en-US"
    ) {
        self.maxRootTabs = maxRootTabs
        self.maxDepth = maxDepth
        self.maxItemsPerList = maxItemsPerList
        self.artworkSizePx = artworkSizePx
        self.errorRendering = errorRendering
        self.supportsSearch = supportsSearch
        self.locale = locale
    }

    /// A car that draws every error screen and has no depth or list limit.
    public static let full = CarProfile()
    /// A car that draws only the two replicated error screens (stock Android Auto behaviour).
    public static let legacy = CarProfile(errorRendering: .legacy)

    /// The number of tabs this car gets: `min(4, maxRootTabs)`, or 4 when `maxRootTabs` is 0.
    public var tabCap: Int { maxRootTabs <= 0 ? 4 : min(4, maxRootTabs) }
    /// ``maxDepth`` clamped to at least 2, or nil.
    public var depthLimit: Int? { maxDepth.map { max(2, $0) } }
}

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
}

/// Something the browse core dropped, cut or repaired, for logs and telemetry.
///
/// Codes (``BrowseReportCode`` holds them as constants): `browseRootRejected`, `browseDepthCut`,
/// `browseItemInvalid`, `browseListCut`, `browseErrorHidden`, `browseCacheDiscarded`,
/// `browseCacheWriteFailed`, `browseCacheNodeTooLarge`, `browseProviderUnavailable`,
/// `browseProviderTimeout`, `browseCacheRefreshed`.
public struct BrowseReport: Sendable, Hashable {
    public var code: String
    public var message: String
    /// The item (or parent, or cache file) it is about.
    public var itemId: String?

    public init(code: String, message: String, itemId: String? = nil) {
        self.code = code
        self.message = message
        self.itemId = itemId
    }
}

/// The ``BrowseReport`` codes.
public enum BrowseReportCode {
    /// A root entry was dropped: over the tab cap, not browsable.
    public static let rootRejected = "browseRootRejected"
    /// A list or an item's chevron was cut because it is deeper than the car's max depth.
    public static let depthCut = "browseDepthCut"
    /// An item failed the check before sending (id, title, flags, completion, duplicate id).
    public static let itemInvalid = "browseItemInvalid"
    /// A list was longer than the car's (or the core's) limit and was cut.
    public static let listCut = "browseListCut"
    /// A legacy car got an empty list instead of an error screen it cannot draw.
    public static let errorHidden = "browseErrorHidden"
    /// A cache file was truncated, corrupt, foreign or of another version, and was deleted.
    public static let cacheDiscarded = "browseCacheDiscarded"
    /// A cache file could not be written or deleted.
    public static let cacheWriteFailed = "browseCacheWriteFailed"
    /// A node is larger than the whole cache's byte bound and was not cached.
    public static let cacheNodeTooLarge = "browseCacheNodeTooLarge"
    /// The provider failed with something other than a ``BrowseError`` (it is not up).
    public static let providerUnavailable = "browseProviderUnavailable"
    /// The provider did not answer within the provider timeout and nothing was cached.
    public static let providerTimeout = "browseProviderTimeout"
    /// The provider answered again and every cached parent was refreshed (message says how many changed).
    public static let cacheRefreshed = "browseCacheRefreshed"
}

/// What the browse core pushes to every subscriber (every connected car's service).
public enum BrowseNotification: Sendable, Hashable {
    /// The children of `parentId` changed; nil means the whole tree.
    case childrenChanged(parentId: String?)
    case report(BrowseReport)
}

/// The browse core's budgets and caps, each with a documented default.
///
/// Time is injected: the core only ever waits through ``sleep``, so a test passes a manual clock
/// and decides when a budget runs out.
public struct BrowseConfiguration: Sendable {
    /// How long a car waits for the provider before it gets the cached node instead. Only applies
    /// when the node is cached. Default 150 ms: a car's root must be on screen at once.
    public var answerBudget: Duration
    /// How long a car waits for the provider when nothing is cached. After it the car gets an
    /// empty list (reported `browseProviderTimeout`), never a spinner that does not end.
    /// Default 10 s.
    public var providerTimeout: Duration
    /// While the provider is down, how often the core asks it again. Default 1 s.
    public var retryInterval: Duration
    /// The page size when a request says 0 or less. Default 100.
    public var defaultPageSize: Int
    /// The largest page a request may ask for; larger ones are clamped. Default 500 (CarPlay's cap).
    public var maxPageSize: Int
    /// How many children the core asks the provider for per node; more are cut and reported
    /// `browseListCut`. Default 2000.
    public var maxChildrenPerNode: Int
    /// How many item → parent/depth facts the core remembers; when full it forgets them all and
    /// learns again as cars browse. Default 100 000.
    public var maxTrackedItems: Int
    /// Waits for the given duration; throws when the waiting task is cancelled.
    public var sleep: @Sendable (Duration) async throws -> Void

    public init(
        answerBudget: Duration = .milliseconds(150),
        providerTimeout: Duration = .seconds(10),
        retryInterval: Duration = .seconds(1),
        defaultPageSize: Int = 100,
        maxPageSize: Int = 500,
        maxChildrenPerNode: Int = 2000,
        maxTrackedItems: Int = 100_000,
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        self.answerBudget = answerBudget
        self.providerTimeout = providerTimeout
        self.retryInterval = retryInterval
        self.defaultPageSize = max(1, defaultPageSize)
        self.maxPageSize = max(1, maxPageSize)
        self.maxChildrenPerNode = max(1, maxChildrenPerNode)
        self.maxTrackedItems = max(1, maxTrackedItems)
        self.sleep = { duration in try await clock.sleep(for: duration) }
    }

    /// The page size to use for a request that asked for `requested`.
    func pageSize(_ requested: Int) -> Int {
        requested <= 0 ? min(defaultPageSize, maxPageSize) : min(requested, maxPageSize)
    }
}
