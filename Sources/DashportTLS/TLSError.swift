/// Everything DashportTLS can report. Each case says which step failed and, where OpenSSL knows
/// more, carries its error-queue text, so a log line is enough to diagnose a failed head unit.
public enum TLSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The handshake failed: bad or unexpected bytes, no shared version or cipher, a protocol error.
    /// Carries OpenSSL's error text (for example `no shared cipher`, `wrong version number`).
    case handshakeFailed(String)
    /// The handshake itself succeeded but the peer's certificate does not pass the ``PeerPolicy``.
    /// The text names the certificate's SHA-256 fingerprint (or says none was sent).
    case peerRejected(String)
    /// `encrypt`/`decrypt` was called before the handshake completed.
    case notEstablished
    /// `encrypt` was given more than ``TLSSession/maximumPlaintextPerRecord`` bytes: one frame carries
    /// exactly one record, so the caller must fragment first (aap-protocol §2.8).
    case recordTooLarge
    /// A received frame did not decrypt: tampered, truncated, out of order, or not a TLS record.
    case decryptFailed(String)
    /// OpenSSL refused to encrypt (only after an earlier failure or when out of memory).
    case encryptFailed(String)
    /// The peer closed the TLS session (close_notify).
    case closedByPeer
    /// A key or certificate file could not be read, parsed or written. `file` is its path.
    case identity(file: String, reason: String)
    /// The configuration cannot work (unreadable CA file, malformed pin, unusable identity).
    case configuration(String)
    /// OpenSSL failed where it should not (out of memory, broken installation).
    case library(String)

    public var description: String {
        switch self {
        case .handshakeFailed(let reason): "TLS handshake failed: \(reason)"
        case .peerRejected(let reason): "TLS peer rejected: \(reason)"
        case .notEstablished: "TLS session not established yet"
        case .recordTooLarge: "TLS plaintext larger than one record (\(TLSSession.maximumPlaintextPerRecord) bytes)"
        case .decryptFailed(let reason): "TLS record did not decrypt: \(reason)"
        case .encryptFailed(let reason): "TLS encryption failed: \(reason)"
        case .closedByPeer: "TLS session closed by the peer"
        case .identity(let file, let reason): "TLS identity file \(file): \(reason)"
        case .configuration(let reason): "TLS configuration: \(reason)"
        case .library(let reason): "OpenSSL failure: \(reason)"
        }
    }
}
