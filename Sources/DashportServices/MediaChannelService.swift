// Sources/DashportServices/MediaChannelService.swift - the Dashport media channel (vendor extension
// `dashport.media`) for one car: requests in, core work and messages out.

public import DashportClock
import DashportBrowse
public import DashportLog
import DashportMessages
import DashportSession

/// The sans-IO service behind one car's Dashport media channel (AAP vendor extension service
/// `dashport.media`, Service field 12). Schema: `Protocols/dashport_media.proto`; who sends what:
/// the DocC article "The Dashport media channel" in `DashportMessages`.
///
/// The connection driver creates one when the link reports the channel open, with the car's
/// profile bytes from `VendorExtensionService.data`, then:
/// 1. sends what ``open(now:)`` returns: SERVER_HELLO, then whatever session state it already has;
/// 2. subscribes to the session core and hands every update to
///    ``sessionUpdated(_:artworkKeys:now:)`` (the three values a subscription replays first are
///    the full state; values already pushed are not pushed twice), and every browse notification
///    to ``browseNotified(_:)``;
/// 3. hands every message on the channel to ``receive(messageId:body:now:)``;
/// 4. performs the ``MediaChannelAction``s it gets back, in order, and hands each answer back
///    with its ticket; answers may come back in any order.
///
/// `now` is always the session clock's reading (`DashportClock.now`): position anchors are on that
/// clock, and PLAYBACK_STATE's `sentAtMs` must be too.
///
/// Artwork never leaves as a URI. Everything that can carry covers (a browse answer, an item, a
/// session update) is handed in together with the keys for its URIs: the driver lists them with
/// `artworkURIs(in:)` (one for each), registers each with the artwork endpoint
/// (`await ArtworkService.register(uri)`, actor-isolated, so it cannot be a synchronous callback)
/// and passes `[uri: key]`. Only those keys go on the wire; a URI without a key (refused by the
/// registry) leaves the item without artwork. No round trip through the service is needed:
/// registering happens in the same async step as the core call.
///
/// Requests are checked before any work: at most ``MediaChannelConfiguration/maxInFlightRequests``
/// in flight (the excess is rejected `busy` at once), ids and queries at most 1 KiB, page sizes
/// capped. A body that does not decode is answered with a rejection when its request id can be
/// read, and only logged otherwise; an unknown message id is logged and ignored.
public struct MediaChannelService: Sendable {
    /// The channel the car opened for `dashport.media` (from its discovery response).
    public let channel: UInt8
    /// Who the car is, for logs and as the commands' ``CommandSource/dashportCar(id:)``.
    public let carId: String
    public let server: MediaChannelServerInfo
    public let configuration: MediaChannelConfiguration
    /// The car's profile; a CAR_PROFILE message replaces it for later requests.
    public internal(set) var profile: MediaChannelCarProfile
    /// Whether ``open(now:)`` ran (pushes before it only update what the service knows).
    public internal(set) var isOpen = false

    let logger: Logger
    var pending: [MediaChannelTicket: PendingRequest] = [:]
    var nextTicket: UInt64 = 1
    var session = SessionMirror()

    /// - Parameters:
    ///   - profileData: `VendorExtensionService.data` as the car sent it (empty when absent);
    ///     missing or undecodable data means the schema's default profile (logged).
    public init(
        channel: UInt8,
        carId: String,
        profileData: [UInt8],
        server: MediaChannelServerInfo,
        configuration: MediaChannelConfiguration = MediaChannelConfiguration(),
        logger: Logger = .silent
    ) {
        self.channel = channel
        self.carId = carId
        self.server = server
        self.configuration = configuration
        self.logger = logger.labelled("media").with("car", carId).with("channel", String(channel))
        self.profile = MediaChannelCarProfile.decode(profileData, configuration: configuration, logger: self.logger)
    }

    /// Requests handed to the driver and not answered yet.
    public var inFlightCount: Int { pending.count }

    /// The tickets handed to the driver and not answered yet, oldest first.
    public var pendingTickets: [MediaChannelTicket] { pending.keys.sorted() }

    /// SERVER_HELLO, then the session state known so far (queue, item, playback state, sleep timer,
    /// remote playback). Call once,
    /// right after creating the service; a second call returns nothing.
    public mutating func open(now: ClockInstant) -> [MediaChannelAction] {
        guard !isOpen else {
            logger.warning("open called twice: ignored")
            return []
        }
        isOpen = true
        let hello = DashportMedia.ServerHello(
            protocolVersion: 1,
            serverName: server.name,
            serverVersion: server.version,
            supportsSearch: server.supportsSearch,
            rootId: BrowseItem.rootId,
            maxInFlightRequests: UInt32(clamping: configuration.maxInFlightRequests),
            maxPageSize: UInt32(clamping: configuration.maxPageSize))
        logger.info("channel open: hello sent", ["search": String(server.supportsSearch)])
        return [send(.serverHello, hello)] + pushKnownState(now: now)
    }

    /// One message from the car on this channel.
    public mutating func receive(messageId: UInt16, body: [UInt8], now: ClockInstant) -> [MediaChannelAction] {
        let id = DashportMedia.MessageId(rawValue: Int32(messageId))
        do throws(WireDecodingError) {
            switch id {
            case .carProfile:
                return receiveProfile(body)
            case .getChildren:
                let request = try DashportMedia.GetChildren(serializedBytes: body)
                return admit(request.requestId, .browse, examine(request))
            case .getItem:
                let request = try DashportMedia.GetItem(serializedBytes: body)
                return admit(request.requestId, .browse, examine(request))
            case .search:
                let request = try DashportMedia.Search(serializedBytes: body)
                return admit(request.requestId, .browse, examine(request))
            case .playFromMediaId:
                let request = try DashportMedia.PlayFromMediaId(serializedBytes: body)
                return admit(request.requestId, .command, examine(request))
            case .playFromSearch:
                let request = try DashportMedia.PlayFromSearch(serializedBytes: body)
                return admit(request.requestId, .command, examine(request))
            case .playbackCommand:
                let request = try DashportMedia.PlaybackCommand(serializedBytes: body)
                return admit(request.requestId, .command, examine(request, now: now))
            case .getArtwork:
                let request = try DashportMedia.GetArtwork(serializedBytes: body)
                return admit(request.requestId, .artwork, examine(request))
            case .serverHello, .browseResult, .childrenChanged, .commandResult, .playbackState, .mediaItemState,
                .queueState, .sessionError, .artworkResult, .sleepTimerState, .sleepTimerFired, .remotePlaybackState:
                logger.warning("the car sent a server-to-car message: ignored", ["message": id.description])
                return []
            default:
                logger.warning("unknown message id: ignored", ["message": String(messageId)])
                return []
            }
        } catch {
            return malformed(body, messageId: id, error: error)
        }
    }

    // MARK: - Helpers shared by the extensions

    /// A message to the car on this channel.
    func send(_ id: DashportMedia.MessageId, _ message: some WireMessage) -> MediaChannelAction {
        send(id, body: message.serializedBytes())
    }

    /// An encoded message to the car on this channel.
    func send(_ id: DashportMedia.MessageId, body: [UInt8]) -> MediaChannelAction {
        .send(OutgoingMessage(channel: channel, messageId: UInt16(truncatingIfNeeded: id.rawValue), body: body))
    }

    /// The key the driver registered for an artwork URI, never the URI itself.
    func artworkKey(_ uri: String?, _ keys: [String: String]) -> String? {
        let key = Self.validKey(uri, keys)
        if key == nil, let uri, !uri.isEmpty, let bad = keys[uri], bad == uri || bad.isEmpty {
            logger.error("an artwork URI was handed in as its own key (or an empty key): artwork left out")
        }
        return key
    }

    /// ``artworkKey(_:_:)`` without the log line.
    static func validKey(_ uri: String?, _ keys: [String: String]) -> String? {
        guard let uri, !uri.isEmpty, let key = keys[uri], key != uri, !key.isEmpty else { return nil }
        return key
    }

    private mutating func receiveProfile(_ body: [UInt8]) -> [MediaChannelAction] {
        do throws(WireDecodingError) {
            let wire = try DashportMedia.CarProfile(serializedBytes: body)
            profile = MediaChannelCarProfile(wire: wire, configuration: configuration)
            logger.info("car profile updated", ["locale": profile.browse.locale])
        } catch {
            logger.warning("CAR_PROFILE does not decode (\(error)): the previous profile stays")
        }
        return []
    }
}
