import CDashportSSL

/// Applies the server's ``PeerPolicy`` once the handshake has completed.
enum PeerCheck {
    /// `nil` when the peer is accepted, else the ``TLSError/peerRejected(_:)`` to report.
    static func evaluate(_ context: TLSContext, ssl: OpaquePointer, fingerprint: String?) -> TLSError? {
        switch context.configuration.peerPolicy {
        case .acceptAny:
            return nil
        case .pinnedSHA256:
            guard let fingerprint else { return .peerRejected("no client certificate, and the policy pins fingerprints") }
            return context.pinnedFingerprints.contains(fingerprint)
                ? nil : .peerRejected("client certificate sha256 \(fingerprint) is not pinned")
        case .certificateAuthority(_, let path):
            guard let fingerprint else { return .peerRejected("no client certificate, and the policy requires one from \(path)") }
            // The handshake let every certificate through, but OpenSSL still verified the chain
            // against the CA certificates and kept the outcome.
            let result = SSL_get_verify_result(ssl)
            guard result != X509_V_OK else { return nil }
            let reason = X509_verify_cert_error_string(result).map { String(cString: $0) } ?? "error \(result)"
            return .peerRejected("client certificate sha256 \(fingerprint) does not verify against \(path): \(reason)")
        }
    }
}
