// Sources/DashportServices/ClassicBrowserTypes.swift - what the classic browser service is told, and what it asks for.

import DashportBrowse
import DashportMessages
import DashportSession

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

    /// Why something the car sent was refused, or was answered with less than it asked for.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// A body that does not decode as the message its id names; dropped.
        case malformedBody(messageId: UInt16, WireDecodingError)
        /// A message id the phone does not receive on this channel (the node ids are ours to
        /// send, others are unknown); dropped.
        case unexpectedMessage(messageId: UInt16)
        /// A MEDIA_GET_NODE over ``Configuration/maxInFlight``; dropped unanswered.
        case tooManyRequests(path: String, limit: Int)
        /// A path with no known prefix; answered with an empty list node echoing it (an unknown
        /// parent is an empty list, never the root).
        case unrecognisedPath(String)
        /// A path with a known prefix whose id does not decode; answered with an empty node of its kind.
        case badPath(String, ClassicBrowserPath.ParseError)
        /// The browse core did not answer within ``Configuration/requestTimeout``; answered with what came.
        case requestTimedOut(path: String)

        public var description: String {
            switch self {
            case .malformedBody(let id, let error): "message 0x\(String(id, radix: 16)): \(error)"
            case .unexpectedMessage(let id): "message 0x\(String(id, radix: 16)) is not one the phone receives on the media browser channel"
            case .tooManyRequests(let path, let limit): "MEDIA_GET_NODE '\(path)' dropped: \(limit) requests already in flight"
            case .unrecognisedPath(let path): "path '\(path)' has no known prefix: answered with an empty list"
            case .badPath(let path, let error): "path '\(path)' is \(error): answered with an empty node"
            case .requestTimedOut(let path): "MEDIA_GET_NODE '\(path)' got no browse answer in time: answered with what came"
            }
        }
    }
}
