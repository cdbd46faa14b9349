// Sources/DashportMPD/MPDAddress.swift - where MPD listens, and why talking to it failed.

public import DashportTransport

/// Where MPD listens: a Unix socket path or a numeric `host:port` (as `bind_to_address` says).
public enum MPDAddress: Sendable, Hashable, CustomStringConvertible {
    case unix(String)
    case tcp(ListenAddress)

    /// MPD's default TCP port.
    public static let defaultPort: UInt16 = 6600

    /// A path (anything with a `/`, or starting with `~` or `.`) is a socket; otherwise
    /// `host:port`, or a bare numeric host (or `localhost`) on port 6600.
    public static func parse(_ text: String) throws(MPDAddressError) -> MPDAddress {
        guard !text.isEmpty else { throw MPDAddressError(text: text, reason: "it is empty") }
        if text.contains("/") || text.hasPrefix("~") || text.hasPrefix(".") { return .unix(text) }
        if let address = ListenAddress(parsing: text) { return .tcp(address) }
        let host = text == "localhost" ? "127.0.0.1" : text
        if let address = ListenAddress(host: host, port: defaultPort) { return .tcp(address) }
        throw MPDAddressError(text: text, reason: "not a socket path, a numeric host:port or a numeric host")
    }

    public var description: String {
        switch self {
        case .unix(let path): path
        case .tcp(let address): address.description
        }
    }
}

/// An `--mpd` value that names no address.
public struct MPDAddressError: Error, Sendable, Hashable, CustomStringConvertible {
    public var text: String
    public var reason: String
    public var description: String { "--mpd \(text): \(reason)" }
}

/// Why a command did not get an answer from MPD, in words a person can act on.
public enum MPDError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing listens at the address (MPD is not running, or elsewhere).
    case unreachable(MPDAddress, String)
    /// The connection closed before the answer (MPD stopped or restarted).
    case disconnected(String)
    /// MPD refused the password (or a command needs one that was not given).
    case password(MPDAck)
    /// MPD refused the command.
    case ack(MPDAck)
    /// MPD's bytes broke the protocol or a bound; the connection was closed.
    case protocolViolation(MPDProtocolError)
    /// The command could not be encoded (nothing was sent).
    case notSendable(MPDProtocolError)
    /// MPD speaks an older protocol than this client needs.
    case tooOld(MPDVersion, needs: MPDVersion)
    /// No answer within the client's timeout (MPD hangs: a pipe output nobody drains does that).
    case timedOut(String, Duration)
    /// The client was stopped.
    case stopped

    public var description: String {
        switch self {
        case .unreachable(let address, let reason):
            "MPD is not reachable at \(address) (\(reason)); is mpd running, and is that its bind_to_address?"
        case .disconnected(let reason): "the connection to MPD closed (\(reason))"
        case .password(let ack):
            "MPD refused the password (\(ack.message)); check the MPD password in Dashport's configuration against mpd.conf"
        case .ack(let ack): ack.description
        case .protocolViolation(let error): "MPD broke the protocol: \(error); the connection was closed"
        case .notSendable(let error): "not sent to MPD: \(error)"
        case .tooOld(let version, let needs): "MPD speaks protocol \(version); Dashport needs \(needs) or later (mpd 0.23)"
        case .timedOut(let command, let limit): "MPD did not answer \(command) within \(limit) (is a pipe output stuck?)"
        case .stopped: "the MPD client was stopped"
        }
    }

    /// Whether a new connection might succeed (the others are answers, not faults of the link).
    public var isConnectionFault: Bool {
        switch self {
        case .unreachable, .disconnected, .protocolViolation, .timedOut: true
        case .password, .ack, .notSendable, .tooOld, .stopped: false
        }
    }
}
