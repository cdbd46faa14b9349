import DashportHeadUnit
import DashportLink
import DashportTLS
import DashportTransport

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
