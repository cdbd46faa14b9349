import CDashportLinux
import Glibc

/// A numeric IPv4 or IPv6 address and a TCP port: where to listen, or where to connect.
///
/// Written `HOST:PORT` (`127.0.0.1:5277`, `0.0.0.0:0`) or, for IPv6, `[HOST]:PORT` (`[::1]:5277`).
/// Host names are not resolved, except `localhost`, which means 127.0.0.1. The host is kept in
/// its canonical form (`[0:0::1]` becomes `::1`), so equal addresses compare equal.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The canonical numeric host, without brackets: "127.0.0.1", "::1".
    public let host: String
    /// The TCP port; 0 asks the system for any free port when listening.
    public let port: UInt16

    /// AAP's "head unit server" address on loopback: 127.0.0.1:5277.
    public static let defaultLoopback = ListenAddress(canonicalHost: "127.0.0.1", port: 5277)

    /// Parses `HOST:PORT` or `[IPv6]:PORT`; nil when it is not one. ``parse(_:)`` says why.
    public init?(parsing text: String) {
        guard let address = try? ListenAddress.parse(text) else { return nil }
        self = address
    }

    /// A numeric IPv4 or IPv6 host (no brackets) and a port; nil when the host is not numeric.
    public init?(host: String, port: UInt16) {
        guard let canonical = ListenAddress.canonical(host) else { return nil }
        self.init(canonicalHost: canonical, port: port)
    }

    init(canonicalHost: String, port: UInt16) {
        self.host = canonicalHost
        self.port = port
    }

    /// Parses `HOST:PORT` or `[IPv6]:PORT`, throwing an error that names what is wrong.
    public static func parse(_ text: String) throws(ParseError) -> ListenAddress {
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .unclosedBracket(text) }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.first == ":" else { throw .missingPort(text) }
            portPart = rest.dropFirst()
            guard hostPart.contains(":"), let canonical = canonical(String(hostPart)) else {
                throw .invalidHost(String(hostPart))
            }
            return ListenAddress(canonicalHost: canonical, port: try parsePort(portPart, in: text))
        }
        guard let colon = text.lastIndex(of: ":") else { throw .missingPort(text) }
        hostPart = text[..<colon]
        portPart = text[text.index(after: colon)...]
        if hostPart.contains(":") { throw .ipv6NeedsBrackets(text) }
        let host = hostPart == "localhost" ? "127.0.0.1" : String(hostPart)
        guard !host.contains(":"), let canonical = canonical(host) else { throw .invalidHost(String(hostPart)) }
        return ListenAddress(canonicalHost: canonical, port: try parsePort(portPart, in: text))
    }

    /// True for 127.0.0.0/8 and ::1: addresses only this machine can reach.
    public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" }

    var isIPv6: Bool { host.contains(":") }

    /// `127.0.0.1:5277` or `[::1]:5277`.
    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Why a text is not a ``ListenAddress``. Each case carries the offending text.
    public enum ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// No `:PORT` at the end.
        case missingPort(String)
        /// The port is empty or not a decimal number.
        case invalidPort(String)
        /// The port is a number above 65535.
        case portOutOfRange(String)
        /// The host is not a numeric IPv4 or IPv6 address (or `localhost`).
        case invalidHost(String)
        /// An IPv6 address written without brackets (`::1:5277` is ambiguous).
        case ipv6NeedsBrackets(String)
        /// `[` without a matching `]`.
        case unclosedBracket(String)

        public var description: String {
            switch self {
            case .missingPort(let text): "\"\(text)\": missing port, expected HOST:PORT or [IPv6]:PORT"
            case .invalidPort(let port): "\"\(port)\": the port is not a number"
            case .portOutOfRange(let port): "\"\(port)\": the port must be between 0 and 65535"
            case .invalidHost(let host): "\"\(host)\": not a numeric IPv4 or IPv6 address"
            case .ipv6NeedsBrackets(let text): "\"\(text)\": write an IPv6 address in brackets, as [::1]:5277"
            case .unclosedBracket(let text): "\"\(text)\": missing ] after the IPv6 address"
            }
        }
    }

    private static func parsePort(_ text: Substring, in whole: String) throws(ParseError) -> UInt16 {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw .invalidPort(String(text))
        }
        // At most 5 significant digits fit; anything longer (leading zeros aside) is out of range.
        let digits = text.drop { $0 == "0" }
        guard digits.count <= 5, let value = Int(digits.isEmpty ? "0" : digits), value <= 65535 else {
            throw .portOutOfRange(String(text))
        }
        return UInt16(value)
    }

    /// The canonical text of a numeric IPv4 or IPv6 host, or nil.
    static func canonical(_ host: String) -> String? {
        SocketAddress(host: host, port: 0)?.hostText
    }
}
