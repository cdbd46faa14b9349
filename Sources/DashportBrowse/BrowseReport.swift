import DashportClock

/// Something the browse core dropped, cut or repaired, for logs and telemetry.
///
/// Codes (``BrowseReportCode`` holds them as constants): `browseRootRejected`, `browseDepthCut`,
/// `browseItemInvalid`, `browseListCut`, `browseErrorHidden`, `browseCacheDiscarded`,
/// `browseCacheWriteFailed`, `browseCacheNodeTooLarge`, `browseProviderUnavailable`,
/// `browseProviderTimeout`, `browseCacheRefreshed`, `browseCacheWritesResumed`.
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

    /// Caused by one car's profile (its tab cap, its depth): it concerns the cars whose profile
    /// causes it, not every car.
    public var isCarSpecific: Bool {
        code == BrowseReportCode.rootRejected || code == BrowseReportCode.depthCut
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
    /// A cache file could not be written or deleted. A write fault (a full disk) is reported when
    /// it starts, with its cause, not for every node written during it.
    public static let cacheWriteFailed = "browseCacheWriteFailed"
    /// Cache writes work again after a fault; the nodes kept in memory meanwhile are written.
    public static let cacheWritesResumed = "browseCacheWritesResumed"
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
