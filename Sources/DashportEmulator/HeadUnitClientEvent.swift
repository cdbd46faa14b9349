import DashportHeadUnit
import DashportLink
import DashportTLS
import DashportTransport

/// What a ``HeadUnitClient`` reports, in order, on its ``HeadUnitClient/events`` stream.
public enum HeadUnitClientEvent: Sendable, Hashable {
    /// Something the car-side link did or saw (see ``HeadUnitEvent``).
    case link(HeadUnitEvent)
    /// The connection is over; always the last event, exactly once.
    case closed(HeadUnitDisconnect)
}

/// Why a ``HeadUnitClient``'s connection ended.
public enum HeadUnitDisconnect: Sendable, Hashable, CustomStringConvertible {
    /// The link state machine closed it: bye-bye (ours or the phone's), a handshake timeout, a
    /// protocol error by the phone.
    case link(LinkCloseReason)
    /// The phone closed the TCP connection without a bye-bye.
    case peerClosed
    /// The socket failed (reset, write error).
    case transport(TransportError)
    /// ``HeadUnitClient/close()`` was called.
    case closedLocally

    /// Whether the session ended the way a session should: a bye-bye, either way, or our own close.
    public var isOrderly: Bool {
        switch self {
        case .link(.byeBye), .link(.peerByeBye), .closedLocally: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .link(let reason): "\(reason)"
        case .peerClosed: "the phone closed the connection"
        case .transport(let error): "\(error)"
        case .closedLocally: "closed by us"
        }
    }
}
