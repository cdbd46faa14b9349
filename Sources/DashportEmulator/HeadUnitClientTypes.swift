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

/// Why ``HeadUnitClient`` could not start or a bounded wait ended without its result.
public enum HeadUnitClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The TCP connection could not be made.
    case connect(TransportError)
    /// A client identity or TLS session could not be built.
    case tls(TLSError)
    /// Nothing came within the time allowed; the text says what was awaited.
    case timedOut(String, Duration)

    public var description: String {
        switch self {
        case .connect(let error): "\(error)"
        case .tls(let error): "\(error)"
        case .timedOut(let what, let limit): "timed out after \(limit.secondsText) waiting for \(what)"
        }
    }
}

/// A bounded wait ran out; ``withTimeout(_:_:)`` throws it.
package struct TimeoutExpired: Error, Sendable {}

/// Runs `operation`, cancelling it and throwing ``TimeoutExpired`` if it has not finished after
/// `timeout`. The operation must honour cancellation for the timeout to take effect promptly.
package func withTimeout<T: Sendable>(
    _ timeout: Duration, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        // The first task to finish decides; `nil` is the timer.
        guard let first = try await group.next(), let value = first else { throw TimeoutExpired() }
        return value
    }
}

extension Duration {
    /// "1.5 s", "250 ms": for messages people read.
    package var secondsText: String {
        let milliseconds = wholeMicroseconds / 1000
        if milliseconds < 1000 { return "\(milliseconds) ms" }
        let tenths = milliseconds / 100
        return tenths % 10 == 0 ? "\(tenths / 10) s" : "\(tenths / 10).\(tenths % 10) s"
    }
}
