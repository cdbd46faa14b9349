import DashportBrowse
import DashportSession

/// What the server tells every car in SERVER_HELLO.
public struct MediaChannelServerInfo: Sendable, Hashable {
    public var name: String
    public var version: String
    /// Whether the browse provider can search: without it the car gets no search tab, SEARCH is
    /// rejected `notSupported` and PLAY_FROM_SEARCH is answered `notSupported`.
    public var supportsSearch: Bool

    public init(name: String, version: String, supportsSearch: Bool) {
        self.name = name
        self.version = version
        self.supportsSearch = supportsSearch
    }
}

/// The service's caps, each with a documented default. Out-of-range values are clamped here.
public struct MediaChannelConfiguration: Sendable, Hashable {
    /// Requests one car may have in flight (browse, commands, artwork together); more are rejected
    /// `busy` at once. Default 32; at least 1.
    public let maxInFlightRequests: Int
    /// The largest page answered; larger `page_size` values are capped (so is the car's own
    /// `max_items_per_list`). Default 500, CarPlay's list cap; at least 1. Keep the browse core's
    /// `maxPageSize` at least this large so pages line up.
    public let maxPageSize: Int
    /// The page size when a request says none (or 0). Default 100; 1…``maxPageSize``.
    public let defaultPageSize: Int
    /// Longest id (parent, item, media id, artwork key, custom action name) in UTF-8 bytes; longer
    /// requests are rejected. Default 1024.
    public let maxIdBytes: Int
    /// Longest search or voice query in UTF-8 bytes; longer requests are rejected. Default 1024.
    public let maxQueryBytes: Int
    /// The artwork box when neither the request nor the car's profile names one. Default 256.
    public let defaultArtworkSizePx: Int
    /// The largest artwork box side asked of the artwork endpoint; larger boxes are capped (images
    /// are never upscaled, so a larger box would not help). Default 2048, the endpoint's own cap.
    public let maxArtworkSizePx: Int

    public init(
        maxInFlightRequests: Int = 32,
        maxPageSize: Int = 500,
        defaultPageSize: Int = 100,
        maxIdBytes: Int = 1024,
        maxQueryBytes: Int = 1024,
        defaultArtworkSizePx: Int = 256,
        maxArtworkSizePx: Int = 2048
    ) {
        self.maxInFlightRequests = max(1, maxInFlightRequests)
        self.maxPageSize = max(1, min(maxPageSize, Int(UInt32.max)))
        self.defaultPageSize = min(max(1, defaultPageSize), self.maxPageSize)
        self.maxIdBytes = max(1, maxIdBytes)
        self.maxQueryBytes = max(1, maxQueryBytes)
        self.maxArtworkSizePx = max(1, min(maxArtworkSizePx, Int(UInt32.max)))
        self.defaultArtworkSizePx = min(max(1, defaultArtworkSizePx), self.maxArtworkSizePx)
    }
}
