public import DashportClock

/// The browse core's budgets and caps, each with a documented default.
///
/// Time is injected: the core only ever waits on ``clock``, so a test passes the manual clock of
/// `DashportTestSupport` and decides when a budget runs out.
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
    /// What the core waits on (budgets, timeouts, retries). Default: a fresh `SystemClock`.
    public var clock: any DashportClock

    public init(
        answerBudget: Duration = .milliseconds(150),
        providerTimeout: Duration = .seconds(10),
        retryInterval: Duration = .seconds(1),
        defaultPageSize: Int = 100,
        maxPageSize: Int = 500,
        maxChildrenPerNode: Int = 2000,
        maxTrackedItems: Int = 100_000,
        clock: any DashportClock = SystemClock()
    ) {
        self.answerBudget = answerBudget
        self.providerTimeout = providerTimeout
        self.retryInterval = retryInterval
        self.defaultPageSize = max(1, defaultPageSize)
        self.maxPageSize = max(1, maxPageSize)
        self.maxChildrenPerNode = max(1, maxChildrenPerNode)
        self.maxTrackedItems = max(1, maxTrackedItems)
        self.clock = clock
    }

    /// The page size to use for a request that asked for `requested`.
    func pageSize(_ requested: Int) -> Int {
        requested <= 0 ? min(defaultPageSize, maxPageSize) : min(requested, maxPageSize)
    }
}
