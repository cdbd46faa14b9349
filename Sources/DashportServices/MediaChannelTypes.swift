// Sources/DashportServices/MediaChannelTypes.swift - what the Dashport media channel service asks of
// its driver, what it gets back, and its limits.

import DashportBrowse
import DashportSession

/// One car request the driver performs on a core actor. The answer is handed back with the same
/// ticket (``MediaChannelService/browseAnswered(_:_:artworkKeys:)`` and friends), in any order.
///
/// Tickets are the service's own, unique per service; the car's request ids may repeat.
public struct MediaChannelTicket: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public static func < (a: MediaChannelTicket, b: MediaChannelTicket) -> Bool { a.rawValue < b.rawValue }

    public var description: String { "ticket \(rawValue)" }
}

/// A browse the driver performs on the browse core, with this car's profile.
public enum MediaChannelBrowseRequest: Sendable, Hashable {
    /// `BrowseCore.children(of:page:pageSize:for:)`; answer with ``MediaChannelService/browseAnswered(_:_:artworkKeys:)``.
    case children(parentId: String, page: Int, pageSize: Int, car: CarProfile)
    /// `BrowseCore.item(id:for:)`; answer with ``MediaChannelService/browseAnswered(_:item:artworkKeys:)``.
    case item(id: String, car: CarProfile)
    /// `BrowseCore.search(_:page:pageSize:for:)`; answer with ``MediaChannelService/browseAnswered(_:_:artworkKeys:)``.
    case search(query: String, page: Int, pageSize: Int, car: CarProfile)
}

/// What the driver does for the service, in order.
public enum MediaChannelAction: Sendable, Hashable {
    /// Send this message to the car (through the link's send queue).
    case send(OutgoingMessage)
    /// Ask the browse core, then call ``MediaChannelService/browseAnswered(_:_:artworkKeys:)`` (children, search)
    /// or ``MediaChannelService/browseAnswered(_:item:artworkKeys:)`` (item).
    case browse(MediaChannelTicket, MediaChannelBrowseRequest)
    /// `SessionCore.perform(_:from:)`, then ``MediaChannelService/commandAnswered(_:_:)``.
    case command(MediaChannelTicket, SessionCommand, CommandSource)
    /// Ask the artwork endpoint for `key` fitted into `width` × `height` (both in
    /// 1…``MediaChannelConfiguration/maxArtworkSizePx``), then ``MediaChannelService/artworkAnswered(_:_:)``.
    case artwork(MediaChannelTicket, key: String, width: Int, height: Int)
}

/// An encoded cover, as the artwork endpoint serves it.
public struct MediaChannelArtworkImage: Sendable, Hashable {
    public var bytes: [UInt8]
    /// `image/jpeg` or `image/png`.
    public var mimeType: String
    /// The actual size, which fits the box asked for.
    public var width: Int
    public var height: Int

    public init(bytes: [UInt8], mimeType: String, width: Int, height: Int) {
        self.bytes = bytes
        self.mimeType = mimeType
        self.width = width
        self.height = height
    }
}

/// Why the artwork endpoint served no image; the car gets it as an `ArtworkError`.
///
/// Suggested mapping from `DashportArtwork.ArtworkError`: `notRegistered`, `outsideRoots` and
/// `unsupportedScheme` → ``Code/notFound``; `tooLarge`, `httpStatus`, `tooManyRedirects`,
/// `timeout`, `io` and `backingOff` → ``Code/fetchFailed``; `decodeFailed` and `tooManyPixels` →
/// ``Code/decodeFailed``; anything else → ``Code/unknown``. The message is the error's description.
public struct MediaChannelArtworkFailure: Error, Sendable, Hashable {
    public enum Code: Sendable, Hashable, CaseIterable {
        case notFound, fetchFailed, decodeFailed, busy, unknown
    }

    public var code: Code
    public var message: String

    public init(code: Code = .unknown, message: String) {
        self.code = code
        self.message = message
    }
}

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
