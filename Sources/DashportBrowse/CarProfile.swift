import DashportClock

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

    /// The car's tab limit. The root gets at most `min(4, maxRootTabs)` tabs (at least 1).
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

    /// The number of tabs this car gets: `min(4, maxRootTabs)`, at least 1.
    public var tabCap: Int { min(4, max(1, maxRootTabs)) }
    /// ``maxDepth`` clamped to at least 2, or nil.
    public var depthLimit: Int? { maxDepth.map { max(2, $0) } }
}
