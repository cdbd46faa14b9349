public import DashportMessages

/// The car side of the Dashport media channel, sans-IO: builds requests with increasing request
/// ids, matches answers to them by id, and keeps the latest of everything the server pushes.
///
/// It never touches the link: send each ``MediaChannelRequest``'s message yourself, and hand every
/// message that arrives on the channel to ``receive(messageId:body:now:)``. `now` is the caller's
/// clock; it only dates playback states so the position can be advanced from their anchor.
public struct MediaChannelClient: Sendable {
    /// Default cap on requests in flight, well above what a server allows (it answers the excess BUSY).
    public static let defaultMaxInFlight = 256

    public let maxInFlight: Int
    /// The server's greeting, once it came.
    public internal(set) var serverHello: DashportMedia.ServerHello?
    /// The latest PLAYBACK_STATE and when it arrived.
    public internal(set) var playback: PlaybackSnapshot?
    /// The latest MEDIA_ITEM_STATE.
    public internal(set) var mediaItem: DashportMedia.MediaItemState?
    /// The latest QUEUE_STATE.
    public internal(set) var queue: DashportMedia.QueueState?
    /// The latest SESSION_ERROR.
    public internal(set) var lastSessionError: DashportMedia.SessionError?
    /// The latest CHILDREN_CHANGED.
    public internal(set) var lastChildrenChanged: DashportMedia.ChildrenChanged?
    /// The latest SLEEP_TIMER_STATE and when it arrived.
    public internal(set) var sleepTimer: SleepTimerSnapshot?
    /// The latest REMOTE_PLAYBACK_STATE.
    public internal(set) var remotePlayback: DashportMedia.RemotePlaybackState?
    /// Requests sent and not yet answered or cancelled, by request id.
    public internal(set) var inFlight: [UInt32: MediaChannelRequest] = [:]
    /// The id the next request gets. Ids start at 1, increase by one, skip 0 when they wrap.
    public internal(set) var nextRequestId: UInt32

    public init(maxInFlight: Int = MediaChannelClient.defaultMaxInFlight, firstRequestId: UInt32 = 1) {
        self.maxInFlight = maxInFlight
        self.nextRequestId = firstRequestId == 0 ? 1 : firstRequestId
    }

    // MARK: Requests

    /// GET_CHILDREN: a page of `parentId`'s children (`page` is 0-based).
    public mutating func getChildren(parentId: String, page: UInt32? = nil, pageSize: UInt32? = nil) throws(MediaChannelClientError)
        -> MediaChannelRequest
    {
        try make(.getChildren(parentId: parentId, page: page, pageSize: pageSize), .getChildren) {
            DashportMedia.GetChildren(requestId: $0, parentId: parentId, page: page, pageSize: pageSize).serializedBytes()
        }
    }

    /// GET_ITEM: one item by id.
    public mutating func getItem(id: String) throws(MediaChannelClientError) -> MediaChannelRequest {
        try make(.getItem(id: id), .getItem) { DashportMedia.GetItem(requestId: $0, id: id).serializedBytes() }
    }

    /// SEARCH: a page of items matching `query`.
    public mutating func search(query: String, page: UInt32? = nil, pageSize: UInt32? = nil) throws(MediaChannelClientError)
        -> MediaChannelRequest
    {
        try make(.search(query: query, page: page, pageSize: pageSize), .search) {
            DashportMedia.Search(requestId: $0, query: query, page: page, pageSize: pageSize).serializedBytes()
        }
    }

    /// PLAY_FROM_MEDIA_ID: play a playable item (the only request that starts an item). `parentId`
    /// is the list it was a row of, so the server queues that list's tracks; nil when the item
    /// came from a search or by id.
    public mutating func playFromMediaId(_ mediaId: String, parentId: String? = nil) throws(MediaChannelClientError)
        -> MediaChannelRequest
    {
        try make(.playFromMediaId(mediaId, parentId: parentId), .playFromMediaId) {
            DashportMedia.PlayFromMediaId(requestId: $0, mediaId: mediaId, parentId: parentId).serializedBytes()
        }
    }

    /// PLAY_FROM_SEARCH: play what a (voice) query names; an empty query means "play something".
    public mutating func playFromSearch(query: String, focus: DashportMedia.SearchFocus? = nil) throws(MediaChannelClientError)
        -> MediaChannelRequest
    {
        try make(.playFromSearch(query: query, focus: focus), .playFromSearch) {
            DashportMedia.PlayFromSearch(requestId: $0, query: query, focus: focus).serializedBytes()
        }
    }

    /// PLAYBACK_COMMAND: one transport command.
    public mutating func playbackCommand(_ command: DashportMedia.PlaybackCommand.Command) throws(MediaChannelClientError)
        -> MediaChannelRequest
    {
        try make(.playbackCommand(command), .playbackCommand) {
            DashportMedia.PlaybackCommand(requestId: $0, command: command).serializedBytes()
        }
    }

    /// GET_ARTWORK: the image behind `key`, fitted into the box (absent: the server's choice).
    public mutating func getArtwork(key: String, width: UInt32? = nil, height: UInt32? = nil) throws(MediaChannelClientError)
        -> MediaChannelRequest
    {
        try make(.getArtwork(key: key, width: width, height: height), .getArtwork) {
            DashportMedia.GetArtwork(requestId: $0, key: key, width: width, height: height).serializedBytes()
        }
    }

    /// Any request, by what it asks for: the same as the matching method above.
    public mutating func makeRequest(_ kind: MediaChannelRequestKind) throws(MediaChannelClientError) -> MediaChannelRequest {
        switch kind {
        case .getChildren(let parentId, let page, let pageSize): try getChildren(parentId: parentId, page: page, pageSize: pageSize)
        case .getItem(let id): try getItem(id: id)
        case .search(let query, let page, let pageSize): try search(query: query, page: page, pageSize: pageSize)
        case .playFromMediaId(let mediaId, let parentId): try playFromMediaId(mediaId, parentId: parentId)
        case .playFromSearch(let query, let focus): try playFromSearch(query: query, focus: focus)
        case .playbackCommand(let command): try playbackCommand(command)
        case .getArtwork(let key, let width, let height): try getArtwork(key: key, width: width, height: height)
        }
    }

    /// CAR_PROFILE: the message (no request id, no answer) telling the server a changed profile.
    public static func carProfileMessage(_ profile: DashportMedia.CarProfile) -> (messageId: UInt16, body: [UInt8]) {
        (wireID(.carProfile), profile.serializedBytes())
    }

    /// Forgets a request (its answer timed out, or it was never sent); a late answer to it is then
    /// ``MediaChannelClientError/unknownRequestId(messageId:requestId:)``.
    @discardableResult
    public mutating func cancel(requestId: UInt32) -> MediaChannelRequest? {
        inFlight.removeValue(forKey: requestId)
    }

    private mutating func make(
        _ kind: MediaChannelRequestKind, _ id: DashportMedia.MessageId, body: (UInt32) -> [UInt8]
    ) throws(MediaChannelClientError) -> MediaChannelRequest {
        guard inFlight.count < maxInFlight else { throw .tooManyInFlight(limit: maxInFlight) }
        var requestId = nextRequestId
        // Fewer than maxInFlight ids are taken, so this ends quickly even after a wrap.
        while inFlight[requestId] != nil || requestId == 0 { requestId &+= 1 }
        nextRequestId = requestId &+ 1 == 0 ? 1 : requestId &+ 1
        let request = MediaChannelRequest(requestId: requestId, kind: kind, messageId: Self.wireID(id), body: body(requestId))
        inFlight[requestId] = request
        return request
    }

    static func wireID(_ id: DashportMedia.MessageId) -> UInt16 {
        UInt16(truncatingIfNeeded: id.rawValue)
    }
}
