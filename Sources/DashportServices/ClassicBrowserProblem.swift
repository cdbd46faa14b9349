public import DashportMessages

/// What the classic browser service reports when it refuses a car's message or answers with less.
extension ClassicBrowserService {
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
