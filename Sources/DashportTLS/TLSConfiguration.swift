/// Which head units the server accepts, judged on the client certificate after the handshake.
///
/// The server always asks for a client certificate and lets any certificate through the handshake
/// itself (head-unit certificates are often X.509 v1 with BER-encoded dates, aap-protocol §8.6);
/// the policy then decides on the raw certificate bytes.
public enum PeerPolicy: Sendable, Hashable {
    /// Any head unit, with or without a certificate (the default on loopback only; design.md).
    case acceptAny
    /// Only certificates whose SHA-256 over the raw DER bytes is in the set. Entries are hex,
    /// upper or lower case, with or without `:` separators. A missing certificate is rejected.
    case pinnedSHA256(Set<String>)
    /// Only certificates that chain to one of the CA certificates in `pem` (one or more PEM
    /// certificates), by OpenSSL's verification (signatures, validity dates, CA constraints). A
    /// missing certificate is rejected. `source` names where the bytes came from (the server's CA
    /// file) in errors and rejections; the TLS layer never reads files.
    case certificateAuthority(pem: [UInt8], source: String)
}

/// How a ``TLSContext`` behaves: the phone (server) role with Dashport's fixed security policy, or
/// the car (client) role used by the head-unit emulator and tests.
public struct TLSConfiguration: Sendable {
    public enum Role: Sendable, Hashable {
        case server
        case client
    }

    public let role: Role
    /// What this side presents. Always set for the server; optional for the client.
    public let identity: TLSIdentity?
    /// Applied by the server after each handshake; `acceptAny` for the client role.
    public let peerPolicy: PeerPolicy
    /// Client role only: an OpenSSL cipher string for TLS ≤ 1.2 replacing the library default,
    /// so tests and the emulator can play a head unit with an unusual offer. `nil` = default.
    var clientCipherList: String?

    /// The TLS 1.2 suites the server allows: AES-GCM only, because aasdk assumes exactly 29 bytes of
    /// record overhead (aap-protocol §2.7, §8.5). Server preference order.
    public static let serverCipherList = "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384"

    /// Phone role: TLS 1.2 only, AES-GCM only, no tickets or resumption, no renegotiation, a client
    /// certificate requested and judged by `peerPolicy`.
    public static func server(identity: TLSIdentity, peerPolicy: PeerPolicy) -> TLSConfiguration {
        TLSConfiguration(role: .server, identity: identity, peerPolicy: peerPolicy, clientCipherList: nil)
    }

    /// Car role: offers what an aasdk head unit offers (OpenSSL defaults: TLS 1.3 and 1.2, ChaCha20
    /// and CBC suites, an empty session ticket, no SNI), presents `identity` if given, and does not
    /// verify the server, so the server's own enforcement is what gets tested.
    public static func client(identity: TLSIdentity?) -> TLSConfiguration {
        TLSConfiguration(role: .client, identity: identity, peerPolicy: .acceptAny, clientCipherList: nil)
    }
}
