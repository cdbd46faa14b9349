public import DashportBrowse

/// What the classic browser service is told: its budgets and caps.
extension ClassicBrowserService {
    /// The service's budgets and caps, each with a documented default.
    public struct Configuration: Sendable, Hashable {
        /// What the browse core applies to this car. AAP classic cars send no profile, so the
        /// default is ``CarProfile/init(maxRootTabs:maxDepth:maxItemsPerList:artworkSizePx:errorRendering:supportsSearch:locale:)``'s:
        /// 4 tabs, 256 px covers (also the size asked of the artwork pipeline).
        public var car: CarProfile
        /// Children per MEDIA_SOURCE_NODE / MEDIA_LIST_NODE page. Default 50; clamped to 1…500
        /// (500 is the browse core's largest page, so one page of ours never spans a cut one of its).
        public var pageSize: Int
        /// How many MEDIA_GET_NODE requests may wait for answers at once; one more is dropped and
        /// reported ``Problem/tooManyRequests(path:limit:)``. Default 16.
        public var maxInFlight: Int
        /// How long a node waits for its covers once its items are known; then it is sent with the
        /// covers that came (the others are left out). Default 2 s.
        public var artworkDeadline: Duration
        /// How long a node waits for the browse core; then it is sent with what came (an empty
        /// node when nothing did) and ``Problem/requestTimedOut(path:)`` is reported. Default 15 s
        /// (longer than the core's own 10 s provider timeout, so it only fires when a driver lost
        /// an answer).
        public var requestTimeout: Duration
        /// The most cover bytes one node carries. A cover that would go over it is left out
        /// (logged), so 50 lists with covers stay well under the link's 1 MiB message cap.
        /// Default 512 KiB.
        public var maxArtworkBytesPerNode: Int
        /// The longest path parsed (see ``ClassicBrowserPath/defaultMaxBytes``). Default 4096.
        public var maxPathBytes: Int

        public init(
            car: CarProfile = CarProfile(),
            pageSize: Int = 50,
            maxInFlight: Int = 16,
            artworkDeadline: Duration = .seconds(2),
            requestTimeout: Duration = .seconds(15),
            maxArtworkBytesPerNode: Int = 512 * 1024,
            maxPathBytes: Int = ClassicBrowserPath.defaultMaxBytes
        ) {
            self.car = car
            self.pageSize = min(500, max(1, pageSize))
            self.maxInFlight = max(1, maxInFlight)
            self.artworkDeadline = max(.zero, artworkDeadline)
            self.requestTimeout = max(.zero, requestTimeout)
            self.maxArtworkBytesPerNode = max(0, maxArtworkBytesPerNode)
            self.maxPathBytes = max(1, maxPathBytes)
        }
    }
}
