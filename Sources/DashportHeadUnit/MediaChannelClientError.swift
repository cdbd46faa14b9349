import DashportDigest
import DashportLink
import DashportMessages

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
        case .undecodable(let id, let error): "message \(Hex.id(id)): \(error)"
        case .unknownRequestId(let id, let requestId): "answer \(Hex.id(id)) to request \(requestId), which is not in flight"
        case .mismatchedAnswer(let requestId, let expected, let got):
            "request \(requestId) expects \(Hex.id(expected)) but got \(Hex.id(got))"
        case .unexpectedMessage(let id): "message \(Hex.id(id)) is not one the server sends"
        case .tooManyInFlight(let limit): "already \(limit) requests in flight"
        }
    }
}
