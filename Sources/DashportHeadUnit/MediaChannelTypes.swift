import DashportLink
import DashportMessages

/// What a car request asked for; kept with its request id until the answer arrives.
public enum MediaChannelRequestKind: Sendable, Hashable {
    case getChildren(parentId: String, page: UInt32?, pageSize: UInt32?)
    case getItem(id: String)
    case search(query: String, page: UInt32?, pageSize: UInt32?)
    case playFromMediaId(String)
    case playFromSearch(query: String, focus: DashportMedia.SearchFocus?)
    case playbackCommand(DashportMedia.PlaybackCommand.Command)
    case getArtwork(key: String, width: UInt32?, height: UInt32?)

    /// The message that answers it: BROWSE_RESULT, COMMAND_RESULT or ARTWORK_RESULT.
    public var answerMessageId: DashportMedia.MessageId {
        switch self {
        case .getChildren, .getItem, .search: .browseResult
        case .playFromMediaId, .playFromSearch, .playbackCommand: .commandResult
        case .getArtwork: .artworkResult
        }
    }
}

/// One request ready to send on the Dashport media channel: its id, what it asks and the
/// message (id + body) to hand to ``HeadUnitClient/send(channel:messageId:body:)``.
public struct MediaChannelRequest: Sendable, Hashable {
    public var requestId: UInt32
    public var kind: MediaChannelRequestKind
    public var messageId: UInt16
    public var body: [UInt8]

    public init(requestId: UInt32, kind: MediaChannelRequestKind, messageId: UInt16, body: [UInt8]) {
        self.requestId = requestId
        self.kind = kind
        self.messageId = messageId
        self.body = body
    }
}

/// The server's answer to one request.
public enum MediaChannelAnswer: Sendable, Hashable {
    case browse(DashportMedia.BrowseResult)
    case command(DashportMedia.CommandResult)
    case artwork(DashportMedia.ArtworkResult)

    public var requestId: UInt32 {
        switch self {
        case .browse(let result): result.requestId
        case .command(let result): result.requestId
        case .artwork(let result): result.requestId
        }
    }
}

/// What one message from the server was, after ``MediaChannelClient/receive(messageId:body:now:)``
/// took it in (the client's state already reflects it).
public enum MediaChannelUpdate: Sendable, Hashable {
    case serverHello(DashportMedia.ServerHello)
    /// An answer, with the request it answers (no longer in flight).
    case answer(MediaChannelRequest, MediaChannelAnswer)
    case playbackState(DashportMedia.PlaybackState)
    case mediaItem(DashportMedia.MediaItemState)
    case queue(DashportMedia.QueueState)
    case sessionError(DashportMedia.SessionError)
    case childrenChanged(DashportMedia.ChildrenChanged)
    case sleepTimer(DashportMedia.SleepTimerState)
    case sleepTimerFired(DashportMedia.SleepTimerFired)
    case remotePlayback(DashportMedia.RemotePlaybackState)
}

/// The latest SLEEP_TIMER_STATE and when it arrived.
public struct SleepTimerSnapshot: Sendable, Hashable {
    public var state: DashportMedia.SleepTimerState
    public var receivedAt: Duration

    public init(state: DashportMedia.SleepTimerState, receivedAt: Duration) {
        self.state = state
        self.receivedAt = receivedAt
    }

    /// Milliseconds left at car time `now` (counting down from `remainingMs` at receipt), never
    /// below 0; nil without an armed timer or while an end-of-track timer waits.
    public func remainingMs(at now: Duration) -> Int64? {
        guard state.mode != nil, let remaining = state.remainingMs else { return nil }
        return Swift.max(0, remaining - (now - receivedAt).wholeMicroseconds / 1000)
    }
}

/// Why a server message was not taken in, or a request not built. The client's state is unchanged.
public enum MediaChannelClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body is not the message its id names.
    case undecodable(messageId: UInt16, WireDecodingError)
    /// An answer whose request id is not in flight: never sent, already answered, or cancelled.
    case unknownRequestId(messageId: UInt16, requestId: UInt32)
    /// An answer of the wrong kind for its request (a COMMAND_RESULT for a GET_CHILDREN).
    case mismatchedAnswer(requestId: UInt32, expected: UInt16, got: UInt16)
    /// A message id the server never sends (a car→server id, or one the schema does not name).
    case unexpectedMessage(messageId: UInt16)
    /// More requests in flight than the client's cap; answer or cancel some first.
    case tooManyInFlight(limit: Int)

    public var description: String {
        switch self {
        case .undecodable(let id, let error): "message \(hexID(id)): \(error)"
        case .unknownRequestId(let id, let requestId): "answer \(hexID(id)) to request \(requestId), which is not in flight"
        case .mismatchedAnswer(let requestId, let expected, let got):
            "request \(requestId) expects \(hexID(expected)) but got \(hexID(got))"
        case .unexpectedMessage(let id): "message \(hexID(id)) is not one the server sends"
        case .tooManyInFlight(let limit): "already \(limit) requests in flight"
        }
    }
}

/// The server's playback state and when the car received it, on the car's clock; with the anchor
/// that is enough to know the position at any later time.
public struct PlaybackSnapshot: Sendable, Hashable {
    public var state: DashportMedia.PlaybackState
    public var receivedAt: Duration

    public init(state: DashportMedia.PlaybackState, receivedAt: Duration) {
        self.state = state
        self.receivedAt = receivedAt
    }

    /// The position at car time `now`, in ms: `valueMs + (sentAtMs - atMs + (now - receivedAt)) × rate`
    /// (dashport_media.proto, PositionAnchor), never below 0 nor past `durationMs` when known.
    /// `nil` without an anchor.
    public func positionMs(at now: Duration, durationMs: Int64? = nil) -> Int64? {
        guard let anchor = state.position else { return nil }
        let sentAt = state.sentAtMs ?? anchor.atMs
        let elapsed = Double(sentAt - anchor.atMs) + Double((now - receivedAt).wholeMicroseconds / 1000)
        let raw = Double(anchor.valueMs) + elapsed * anchor.rate
        var position = raw.isFinite ? Int64(clamping: raw) : anchor.valueMs
        if let durationMs, durationMs > 0 { position = min(position, durationMs) }
        return max(0, position)
    }
}

extension Int64 {
    /// Rounds toward zero, saturating at the type's bounds.
    package init(clamping value: Double) {
        if value >= Double(Int64.max) { self = .max } else if value <= Double(Int64.min) { self = .min } else { self = Int64(value) }
    }
}

/// `0x8003`-style rendering of a message id.
package func hexID(_ id: UInt16) -> String {
    let digits = String(id, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
