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
