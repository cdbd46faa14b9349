import CDashportSSL

/// One configured OpenSSL context (`SSL_CTX`), built once and shared by every connection: the
/// identity is parsed, the CA file loaded and the policy fixed here, so a ``TLSSession`` is cheap.
public final class TLSContext: @unchecked Sendable {
    // why safe: every stored property is a `let` holding either a Sendable value or the SSL_CTX.
    // The SSL_CTX is fully configured inside `init` and never mutated afterwards; OpenSSL documents
    // a configured SSL_CTX as safe to use from many threads at once for SSL_new (which only bumps
    // its reference count and copies settings under the context's own lock), and sessions never
    // write back to it (the session cache is off and tickets are disabled; a context made with
    // `resumableSessions`, the fuzz drivers' only, issues tickets, which needs no shared state).
    let pointer: OpaquePointer
    /// What this context was built from.
    public let configuration: TLSConfiguration
    /// `pinnedSHA256` entries normalised to lowercase hex without separators.
    let pinnedFingerprints: Set<String>

    /// Whether sessions free their record buffers while empty (`SSL_MODE_RELEASE_BUFFERS`).
    var releasesIdleBuffers: Bool { dashport_ssl_ctx_releases_buffers(pointer) != 0 }

    /// Builds the context. Throws ``TLSError/configuration(_:)`` for an identity OpenSSL refuses, a
    /// CA file that does not load, or a malformed or empty pin set.
    public convenience init(_ configuration: TLSConfiguration) throws(TLSError) {
        try self.init(configuration, resumableSessions: false)
    }

    /// The same, and with `resumableSessions` a server that issues TLS 1.2 session tickets
    /// (RFC 5077), so a client that offers one again (`TLSSession.resume(_:)`) gets an
    /// abbreviated handshake: no certificates, no key exchange, no signatures. For the link fuzzer
    /// only (`tools/fuzz/Link`), whose every input sets up a link over TLS: Dashport's server never
    /// resumes (head units reconnect with fresh handshakes). Tickets rather than a session cache,
    /// because OpenSSL drops a cached session whose connection ended without a close_notify or
    /// with a fatal alert, which is how every fuzzed link ends. A client context made with it
    /// offers TLS 1.2 only (it resumes 1.2 tickets, and a TLS 1.3 key share would be made for
    /// nothing in every ClientHello). With `keepsBuffers` (the link fuzzer's live sessions, which
    /// seal and open a record at a time) sessions keep their read and write buffers instead of
    /// freeing them whenever they are empty, as Dashport's (and every other context) do.
    package init(_ configuration: TLSConfiguration, resumableSessions: Bool, keepsBuffers: Bool = false) throws(TLSError) {
        ERR_clear_error()
        defer { ERR_clear_error() }
        let method = configuration.role == .server ? TLS_server_method() : TLS_client_method()
        guard let context = SSL_CTX_new(method) else {
            throw .library("SSL_CTX_new: \(OpenSSLErrorQueue.describe(or: "failed"))")
        }
        // A session's read and write buffers (about 34 KiB) are freed whenever they are empty, which
        // for a car between requests is nearly always: hundreds of idle cars do not hold them.
        if !keepsBuffers { _ = dashport_ssl_ctx_release_buffers(context) }
        do throws(TLSError) {
            if case .pinnedSHA256(let pins) = configuration.peerPolicy {
                pinnedFingerprints = try Self.normalise(pins)
            } else {
                pinnedFingerprints = []
            }
            switch configuration.role {
            case .server: try Self.configureServer(context, configuration, resumable: resumableSessions)
            case .client:
                try Self.configureClient(context, configuration)
                if resumableSessions {
                    guard dashport_ssl_ctx_set_max_proto(context, TLS1_2_VERSION) == 1 else {
                        throw .library("cannot limit the client to TLS 1.2: \(OpenSSLErrorQueue.drain())")
                    }
                }
            }
            if let identity = configuration.identity { try Self.use(identity, in: context, role: configuration.role) }
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        self.pointer = context
        self.configuration = configuration
    }

    deinit { SSL_CTX_free(pointer) }

    private static func configureServer(_ context: OpaquePointer, _ configuration: TLSConfiguration, resumable: Bool)
        throws(TLSError)
    {
        guard configuration.identity != nil else { throw .configuration("a server needs an identity") }
        // TLS 1.2 only, even when the head unit offers 1.3: aasdk's handshake order and record
        // overhead both assume 1.2 (aap-protocol §2.7, §8.5).
        guard dashport_ssl_ctx_set_min_proto(context, TLS1_2_VERSION) == 1,
            dashport_ssl_ctx_set_max_proto(context, TLS1_2_VERSION) == 1
        else { throw .library("cannot pin TLS 1.2: \(OpenSSLErrorQueue.drain())") }
        guard SSL_CTX_set_cipher_list(context, TLSConfiguration.serverCipherList) == 1 else {
            throw .library("cipher list: \(OpenSSLErrorQueue.drain())")
        }
        // Head units reconnect with fresh handshakes: no tickets, no session cache, no session id
        // in ServerHello, so nothing is resumable (but in the fuzz drivers' `resumable` context,
        // which issues tickets). No renegotiation, no compression.
        _ = SSL_CTX_set_options(
            context,
            (resumable ? 0 : dashport_ssl_op_no_ticket()) | dashport_ssl_op_no_renegotiation()
                | dashport_ssl_op_no_compression() | dashport_ssl_op_cipher_server_preference())
        _ = dashport_ssl_ctx_set_session_cache_mode(context, Int(SSL_SESS_CACHE_OFF))
        _ = SSL_CTX_set_num_tickets(context, 0)
        let sessionContext = Array("dashport".utf8)
        _ = SSL_CTX_set_session_id_context(context, sessionContext, UInt32(sessionContext.count))
        // Ask for a client certificate, let any (or none) through; the PeerPolicy decides later.
        dashport_ssl_ctx_request_any_client_certificate(context)

        if case .certificateAuthority(let pem, let source) = configuration.peerPolicy {
            try trust(pem, from: source, in: context)
        }
    }

    /// Adds every PEM certificate in `pem` to the context's trust store; none at all is an error.
    private static func trust(_ pem: [UInt8], from source: String, in context: OpaquePointer) throws(TLSError) {
        guard let store = SSL_CTX_get_cert_store(context), let bio = MemoryBIO.reading(pem) else {
            throw .library("cannot set up the CA store: \(OpenSSLErrorQueue.drain())")
        }
        defer { BIO_free(bio) }
        var added = 0
        while let certificate = dashport_pem_read_x509(bio) {
            defer { X509_free(certificate) }
            guard X509_STORE_add_cert(store, certificate) == 1 else {
                throw .configuration("cannot trust a CA certificate from \(source): \(OpenSSLErrorQueue.drain())")
            }
            added += 1
        }
        // Reading stops at the end of the input with a "no start line" error: expected, not kept.
        OpenSSLErrorQueue.drain()
        guard added > 0 else {
            throw .configuration("cannot load CA certificates from \(source): no PEM certificate found")
        }
    }

    private static func configureClient(_ context: OpaquePointer, _ configuration: TLSConfiguration) throws(TLSError) {
        // Head units do not verify the phone (aap-protocol §2.6).
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        if let ciphers = configuration.clientCipherList {
            guard SSL_CTX_set_cipher_list(context, ciphers) == 1 else {
                throw .configuration("client cipher list \"\(ciphers)\": \(OpenSSLErrorQueue.describe(or: "no usable cipher"))")
            }
        }
    }

    private static func use(_ identity: TLSIdentity, in context: OpaquePointer, role: TLSConfiguration.Role) throws(TLSError) {
        let (certificate, key) = try identity.openSSLObjects()
        // The only suites the server allows are ECDHE-RSA ones: any other key could never handshake.
        guard role == .client || EVP_PKEY_get_base_id(key.pointer) == EVP_PKEY_RSA else {
            throw .configuration(
                "server identity \(identity.fingerprintSHA256) must have an RSA key "
                    + "(the allowed suites are ECDHE-RSA AES-GCM)")
        }
        // SSL_CTX_use_* take their own references; our owners free ours.
        guard SSL_CTX_use_certificate(context, certificate.pointer) == 1,
            SSL_CTX_use_PrivateKey(context, key.pointer) == 1,
            SSL_CTX_check_private_key(context) == 1
        else {
            throw .configuration("identity \(identity.fingerprintSHA256) refused: \(OpenSSLErrorQueue.describe(or: "unknown"))")
        }
    }

    private static func normalise(_ pins: Set<String>) throws(TLSError) -> Set<String> {
        guard !pins.isEmpty else { throw .configuration("a pinned policy with no fingerprints rejects every head unit") }
        var normalised: Set<String> = []
        for pin in pins {
            let hex = pin.lowercased().filter { $0 != ":" && $0 != " " }
            guard hex.count == 64, hex.allSatisfy({ $0.isHexDigit }) else {
                throw .configuration("pinned fingerprint \"\(pin)\" is not 64 hex digits of SHA-256")
            }
            normalised.insert(hex)
        }
        return normalised
    }
}
