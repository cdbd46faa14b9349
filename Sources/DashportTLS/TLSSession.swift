import DashportDigest
import CDashportSSL
public import DashportLog

/// One TLS connection over two in-memory BIOs: bytes in, bytes out, no file descriptors.
///
/// Handshake: the client calls ``startHandshake()`` and sends what it returns; each side then feeds
/// every ENCAPSULATED_SSL body it receives to ``handshake(received:)`` and sends the returned bytes,
/// if any, as ONE ENCAPSULATED_SSL message (a head unit aborts on a split flight, aap-protocol §2.4).
/// After ``isHandshakeComplete``: ``encrypt(_:)`` makes exactly one record per frame and
/// ``decrypt(_:)`` opens one frame's payload. Records carry sequence numbers, so encrypt frames in
/// the order they are sent and decrypt them in the order they arrive (§2.8).
///
/// Not Sendable: one connection's state machine owns it. Any error is final: the session stays
/// failed and every later call rethrows it; close the connection.
public final class TLSSession {
    /// Most plaintext one record (and so one frame) may carry.
    public static let maximumPlaintextPerRecord = 16_384
    /// Bytes a TLS 1.2 AES-GCM record adds: 5 header + 8 explicit nonce + 16 tag (§2.7).
    public static let recordOverhead = 29
    /// Room a frame being built leaves beyond a record's plaintext for ``encrypt(_:into:)``: more
    /// than any TLS 1.2 suite adds to one record (AES-GCM 29 bytes, CBC with SHA-384 85).
    public static let maximumRecordExpansion = 256

    private enum State {
        case idle, handshaking, established
        case failed(TLSError)
    }

    private let context: TLSContext
    /// Internal (not private) so tests can make OpenSSL misbehave, e.g. start a renegotiation.
    let ssl: OpaquePointer
    /// Bytes from the peer, read by OpenSSL. Owned by `ssl`.
    private let inbound: OpaquePointer
    /// Bytes OpenSSL wants sent to the peer. Owned by `ssl`.
    let outbound: OpaquePointer
    private let logger: Logger
    private var state = State.idle
    /// The link fuzzer's record counts, once `countRecords()` asked for them (TLSSession+RecordCount.swift).
    var recordCounter: TLSRecordCounter?

    /// "TLSv1.2" once established.
    public private(set) var negotiatedVersion: String?
    /// OpenSSL's name of the suite, e.g. "ECDHE-RSA-AES128-GCM-SHA256", once established.
    public private(set) var negotiatedCipher: String?
    /// The certificate the peer presented, DER exactly as received; `nil` if it sent none.
    public private(set) var peerCertificateDER: [UInt8]?
    /// Lowercase hex SHA-256 of ``peerCertificateDER``.
    public private(set) var peerFingerprintSHA256: String?

    public init(context: TLSContext, logger: Logger = .silent) throws(TLSError) {
        ERR_clear_error()
        defer { ERR_clear_error() }
        guard let ssl = SSL_new(context.pointer) else { throw .library("SSL_new: \(OpenSSLErrorQueue.drain())") }
        guard let inbound = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .library("BIO_new: \(OpenSSLErrorQueue.drain())")
        }
        guard let outbound = dashport_outbound_bio_new() else {
            BIO_free(inbound)
            SSL_free(ssl)
            throw .library("BIO_new: \(OpenSSLErrorQueue.drain())")
        }
        SSL_set_bio(ssl, inbound, outbound)  // ssl owns both BIOs from here; SSL_free frees them
        switch context.configuration.role {
        case .server: SSL_set_accept_state(ssl)
        case .client: SSL_set_connect_state(ssl)
        }
        self.context = context
        self.ssl = ssl
        self.inbound = inbound
        self.outbound = outbound
        self.logger = logger
    }

    deinit { SSL_free(ssl) }

    public var isHandshakeComplete: Bool {
        if case .established = state { return true }
        return false
    }

    /// Starts the handshake. Client: returns the ClientHello to send. Server: returns `[]` (it speaks
    /// when the ClientHello arrives).
    public func startHandshake() throws(TLSError) -> [UInt8] {
        switch context.configuration.role {
        case .server:
            try checkUsable()
            if case .idle = state { state = .handshaking }
            return []
        case .client:
            return try handshake(received: [])
        }
    }

    /// Feeds one ENCAPSULATED_SSL body (may be empty: aasdk sends empty ones) and returns this side's
    /// whole next flight, possibly empty, to send as one message. When this completes the handshake
    /// on the server, the ``PeerPolicy`` is applied first: a rejected peer gets nothing further and
    /// the call throws ``TLSError/peerRejected(_:)``. A message may also carry part of a flight;
    /// OpenSSL buffers it and bounds each handshake message (about 128 KiB, certificates 100 KiB).
    public func handshake(received: [UInt8]) throws(TLSError) -> [UInt8] {
        try checkUsable()
        if case .established = state {
            if received.isEmpty { return [] }
            throw fail(.handshakeFailed("handshake data received after the handshake completed"))
        }
        ERR_clear_error()
        defer { ERR_clear_error() }
        state = .handshaking
        guard MemoryBIO.write(received, to: inbound) else {
            throw fail(.library("BIO_write: \(OpenSSLErrorQueue.describe(or: "out of memory"))"))
        }
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            try finishHandshake()
            return MemoryBIO.drain(outbound)
        }
        let code = SSL_get_error(ssl, result)
        guard code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE else {
            throw fail(.handshakeFailed(Self.explain(code)))
        }
        return MemoryBIO.drain(outbound)
    }

    /// Encrypts `plaintext` (at most ``maximumPlaintextPerRecord`` bytes) into exactly one record:
    /// with TLS 1.2 AES-GCM, `plaintext.count + recordOverhead` bytes. An empty plaintext gives an
    /// empty result and no record, as aasdk sends an empty LAST frame without one (§8.2).
    public func encrypt(_ plaintext: ArraySlice<UInt8>) throws(TLSError) -> [UInt8] {
        var failure: TLSError?
        let record = [UInt8](unsafeUninitializedCapacity: plaintext.count + Self.maximumRecordExpansion) { buffer, count in
            do throws(TLSError) {
                count = try encrypt(plaintext, into: UnsafeMutableRawBufferPointer(buffer))
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return record
    }

    /// ``encrypt(_:)-(ArraySlice<UInt8>)``, the record written by OpenSSL straight into `buffer`
    /// (the frame that carries it; see the outbound BIO in CDashportSSL): no array of its own and
    /// one copy per record, where every audio DATA, 23 a second per car, is one. `buffer` needs
    /// ``maximumRecordExpansion`` bytes of room beyond the plaintext; returns the record's length.
    public func encrypt(_ plaintext: ArraySlice<UInt8>, into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) -> Int {
        try checkEstablished()
        guard plaintext.count <= Self.maximumPlaintextPerRecord else { throw .recordTooLarge }
        guard !plaintext.isEmpty else { return 0 }
        guard buffer.count >= plaintext.count + Self.maximumRecordExpansion, let base = buffer.baseAddress else {
            throw .library("a record needs \(Self.maximumRecordExpansion) bytes of room beyond its plaintext")
        }
        OpenSSLErrorQueue.clearIfNotEmpty()  // SSL_get_error needs an empty queue before the call
        defer { OpenSSLErrorQueue.clearIfNotEmpty() }
        dashport_outbound_set_target(outbound, base.assumingMemoryBound(to: UInt8.self), buffer.count)
        let written = plaintext.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
        let length = dashport_outbound_take_target(outbound)
        guard written == plaintext.count else {
            throw fail(.encryptFailed(Self.explain(SSL_get_error(ssl, written))))
        }
        // Never with the room asked for: one TLS 1.2 record adds 29 bytes (AES-GCM), 85 at most.
        guard BIO_ctrl_pending(outbound) == 0 else { throw fail(.library("a record did not fit the room of its frame")) }
        return length
    }

    /// ``encrypt(_:)-(ArraySlice<UInt8>)`` for a whole array.
    public func encrypt(_ plaintext: [UInt8]) throws(TLSError) -> [UInt8] {
        try encrypt(plaintext[...])
    }

    /// Decrypts one frame's payload: one or more whole records. Empty input gives empty output. A
    /// payload that ends inside a record, fails authentication, or tries to renegotiate throws
    /// ``TLSError/decryptFailed(_:)``; a close_notify throws ``TLSError/closedByPeer``.
    public func decrypt(_ record: [UInt8]) throws(TLSError) -> [UInt8] {
        try checkEstablished()
        guard !record.isEmpty else { return [] }
        OpenSSLErrorQueue.clearIfNotEmpty()  // SSL_get_error needs an empty queue before the call
        defer { OpenSSLErrorQueue.clearIfNotEmpty() }
        guard MemoryBIO.write(record, to: inbound) else {
            throw fail(.library("BIO_write: \(OpenSSLErrorQueue.describe(or: "out of memory"))"))
        }
        // Plaintext is never longer than its ciphertext, so `record.count` bytes always suffice.
        var failure: TLSError?
        let plaintext = [UInt8](unsafeUninitializedCapacity: record.count) { buffer, count in
            while count < buffer.count {
                let read = SSL_read(ssl, buffer.baseAddress.map { $0 + count }, Int32(buffer.count - count))
                if read > 0 {
                    count += Int(read)
                    continue
                }
                let code = SSL_get_error(ssl, read)
                if code == SSL_ERROR_ZERO_RETURN {
                    failure = .closedByPeer
                } else if code != SSL_ERROR_WANT_READ {
                    failure = .decryptFailed(Self.explain(code))
                }
                return
            }
        }
        if let failure { throw fail(failure) }
        if BIO_ctrl_pending(inbound) > 0 || SSL_has_pending(ssl) == 1 {
            throw fail(.decryptFailed("frame ends inside a TLS record"))
        }
        if BIO_ctrl_pending(outbound) > 0 {
            // Only a renegotiation attempt (answered with a no_renegotiation alert) or a key update
            // makes OpenSSL want to send while reading; this link supports neither.
            throw fail(.decryptFailed("peer started a post-handshake exchange (renegotiation), which is refused"))
        }
        return plaintext
    }

    /// Whether the session this side holds could be resumed (a session id or a ticket was issued).
    /// Always false against a Dashport server.
    public var sessionIsResumable: Bool {
        guard let session = SSL_get1_session(ssl) else { return false }
        defer { SSL_SESSION_free(session) }
        return SSL_SESSION_is_resumable(session) == 1
    }

    /// Client role, before `startHandshake()`: offers `session` (from an earlier handshake with
    /// the same server context, `resumableSession`), so the server that issued it answers with an
    /// abbreviated handshake. For the link fuzzer only (see `TLSContext(_:resumableSessions:)`);
    /// a server that does not know the session runs a full handshake, as if none were offered.
    package func resume(_ session: TLSResumableSession) throws(TLSError) {
        guard context.configuration.role == .client, case .idle = state else {
            throw .library("a session is resumed by a client before its handshake")
        }
        // A copy: this connection's end (without a close_notify, as a link's) marks the session it
        // used as not resumable, and `session` must stay good for the next one.
        guard let copy = SSL_SESSION_dup(session.pointer) else { throw .library("SSL_SESSION_dup: \(OpenSSLErrorQueue.drain())") }
        defer { SSL_SESSION_free(copy) }  // SSL_set_session takes its own reference
        guard SSL_set_session(ssl, copy) == 1 else { throw .library("SSL_set_session: \(OpenSSLErrorQueue.drain())") }
    }

    /// A copy of this side's session once established, if it can be resumed (the server gave
    /// it a ticket or an id). A copy, because OpenSSL marks the session itself as not resumable
    /// when this connection is freed without a close_notify, as a link's always is.
    package var resumableSession: TLSResumableSession? {
        guard isHandshakeComplete, let session = SSL_get_session(ssl), SSL_SESSION_is_resumable(session) == 1,
            let copy = SSL_SESSION_dup(session)
        else { return nil }
        return TLSResumableSession(taking: copy)
    }

    /// Whether the handshake resumed an earlier session (abbreviated: no certificates or key exchange).
    package var wasResumed: Bool { SSL_session_reused(ssl) == 1 }

    /// Whether the peer issued a session ticket.
    var sessionHasTicket: Bool {
        guard let session = SSL_get1_session(ssl) else { return false }
        defer { SSL_SESSION_free(session) }
        return SSL_SESSION_has_ticket(session) == 1
    }

    // MARK: - Internals

    private func finishHandshake() throws(TLSError) {
        negotiatedVersion = SSL_get_version(ssl).map { String(cString: $0) }
        negotiatedCipher = SSL_get_current_cipher(ssl).flatMap { SSL_CIPHER_get_name($0) }.map { String(cString: $0) }
        if let certificate = SSL_get1_peer_certificate(ssl) {
            let der = X509Certificate(taking: certificate).der
            peerCertificateDER = der
            peerFingerprintSHA256 = SHA256.hex(der)
        }
        if context.configuration.role == .server,
            let rejection = PeerCheck.evaluate(
                self.context, ssl: ssl,
                fingerprint: peerFingerprintSHA256)
        {
            _ = MemoryBIO.drain(outbound)  // the Finished flight must not reach a rejected peer
            logger.warning("head unit rejected by peer policy", ["reason": rejection.description])
            throw fail(rejection)
        }
        state = .established  // logged once, by the link's owner, from the link's tlsEstablished event
    }

    private func checkUsable() throws(TLSError) {
        if case .failed(let error) = state { throw error }
    }

    private func checkEstablished() throws(TLSError) {
        switch state {
        case .established: return
        case .failed(let error): throw error
        case .idle, .handshaking: throw .notEstablished
        }
    }

    /// Records `error` as final and returns it for throwing.
    private func fail(_ error: TLSError) -> TLSError {
        state = .failed(error)
        _ = MemoryBIO.drain(outbound)
        return error
    }

    private static func explain(_ code: Int32) -> String {
        let fallback =
            switch code {
            case SSL_ERROR_SYSCALL: "unexpected end of data"
            case SSL_ERROR_ZERO_RETURN: "peer closed the session"
            case SSL_ERROR_SSL: "protocol error"
            default: "SSL error \(code)"
            }
        return OpenSSLErrorQueue.describe(or: fallback)
    }
}

/// An established TLS session a client can offer again (`TLSSession.resume(_:)`): OpenSSL's
/// `SSL_SESSION`, one reference owned. Not Sendable: keep it where one thread uses it.
package final class TLSResumableSession {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit { SSL_SESSION_free(pointer) }
}
