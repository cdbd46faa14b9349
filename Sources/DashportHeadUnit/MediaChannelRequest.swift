import DashportLink
public import DashportMessages

/// What a car request asked for; kept with its request id until the answer arrives.
public enum MediaChannelRequestKind: Sendable, Hashable {
    case getChildren(parentId: String, page: UInt32?, pageSize: UInt32?)
    case getItem(id: String)
    case search(query: String, page: UInt32?, pageSize: UInt32?)
    /// `parentId`: the list the item was a row of (nil for a search result or an id typed in).
    case playFromMediaId(String, parentId: String? = nil)
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
