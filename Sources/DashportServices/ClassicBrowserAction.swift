public import DashportBrowse
public import DashportSession

/// What the classic browser service asks its driver to do, and the ticket an answer carries back.
extension ClassicBrowserService {
    /// Names one request the service hands to the driver; the driver's answer carries it back.
    public struct Ticket: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }
        public var description: String { "#\(rawValue)" }
    }

    /// What the driver does for the service, in the order returned.
    public enum Action: Sendable, Hashable {
        /// Send this message to the car (always a node answering a MEDIA_GET_NODE).
        case send(OutgoingMessage)
        /// Ask the browse core for page `page` (0-based) of `pageSize` children of `parentId`
        /// (`BrowseCore.children(of:page:pageSize:for:)`); answer with ``ClassicBrowserService/browseAnswered(_:_:now:)``.
        case browse(Ticket, parentId: String, page: Int, pageSize: Int, car: CarProfile)
        /// Ask the browse core for one item (`BrowseCore.item(id:for:)`); answer with
        /// ``ClassicBrowserService/itemAnswered(_:_:now:)``.
        case fetchItem(Ticket, itemId: String, car: CarProfile)
        /// Ask the artwork pipeline for `uri` fitted to `width`×`height`; answer with
        /// ``ClassicBrowserService/artworkAnswered(_:_:now:)`` (nil bytes when it failed).
        case fetchArtwork(Ticket, uri: String, width: Int, height: Int)
        /// Hand a command to the session core (`SessionCore.perform(_:from:)`).
        case command(SessionCommand, CommandSource)
        /// Something the car sent was refused or could not be answered in full; already logged.
        case problem(Problem)
    }
}
