// A record layer for the link fuzzers only: TLS 1.2 AES-GCM's record framing without the
// cryptography, so FuzzLinkRunning spends its time in the link and the services, not in RSA.
// It lives in DashportFuzzLinkDrivers, which no server, emulator or tool target depends on: a
// `PhoneLink` in the server is always over a `TLSSession` (its public initialiser takes one).
package import DashportTLS

/// TLS 1.2 AES-GCM's record format with a null cipher, behind ``RecordLayer``.
///
/// A record is what OpenSSL writes: a 5-byte header (type 23 application data, version 3.3, the
/// length of what follows), the 8-byte explicit nonce, the plaintext as it is, and a 16-byte tag,
/// so a record is ``TLSSession/recordOverhead`` bytes longer than its plaintext and the link's
/// one-record-per-frame checks see what they see over TLS. Opening a record checks the header,
/// the length and that the nonce is this direction's next sequence number (as GCM's
/// authentication fails for a replayed, dropped or reordered record); the tag is not checked. An
/// alert record (type 21) is the peer closing the session, a handshake record (type 22) a
/// renegotiation, refused, as `TLSSession` reports them. Like `TLSSession`, any error is final.
///
/// The handshake is one exchange: the client's flight is ``clientHello``; the server answers
/// ``serverFinished`` and is established; the client is established when that arrives. Anything
/// else fails the handshake.
package final class NullRecordLayer: RecordLayer {
    package enum Role { case server, client }

    package static let clientHello: [UInt8] = Array("null-record-layer client hello".utf8)
    package static let serverFinished: [UInt8] = Array("null-record-layer server finished".utf8)
    /// Header and explicit nonce, before the plaintext.
    static let prefixLength = 13
    static let tagLength = 16

    private enum State {
        case idle, handshaking, established
        case failed(TLSError)
    }

    let role: Role
    private var state = State.idle
    private var sequenceIn: UInt64 = 0
    private var sequenceOut: UInt64 = 0
    package let peerFingerprintSHA256: String?

    /// `peerFingerprint` is what the server reports of the client's certificate (nil: none presented).
    package init(_ role: Role, peerFingerprint: String? = nil) {
        self.role = role
        self.peerFingerprintSHA256 = peerFingerprint
    }

    /// A second layer in this one's state (sequence numbers, failure): the post-handshake snapshot
    /// of `LinkFuzz` copies its pair's layers for each input.
    package func copy() -> NullRecordLayer {
        let copy = NullRecordLayer(role, peerFingerprint: peerFingerprintSHA256)
        copy.state = state
        copy.sequenceIn = sequenceIn
        copy.sequenceOut = sequenceOut
        return copy
    }

    /// The sequence number the next record opened must carry.
    package var inboundRecordNumber: UInt64 { sequenceIn }

    package var isHandshakeComplete: Bool {
        if case .established = state { return true }
        return false
    }
    package var negotiatedVersion: String? { isHandshakeComplete ? "TLSv1.2" : nil }
    package var negotiatedCipher: String? { isHandshakeComplete ? "NULL-RECORD-LAYER" : nil }

    package func startHandshake() throws(TLSError) -> [UInt8] {
        try usable()
        switch role {
        case .server:
            if case .idle = state { state = .handshaking }
            return []
        case .client:
            guard case .idle = state else { throw fail(.handshakeFailed("handshake started twice")) }
            state = .handshaking
            return Self.clientHello
        }
    }

    package func handshake(received: [UInt8]) throws(TLSError) -> [UInt8] {
        try usable()
        if case .established = state {
            if received.isEmpty { return [] }
            throw fail(.handshakeFailed("handshake data received after the handshake completed"))
        }
        if received.isEmpty { return [] }
        switch role {
        case .server:
            guard received == Self.clientHello else { throw fail(.handshakeFailed("not the null client hello")) }
            state = .established
            return Self.serverFinished
        case .client:
            guard case .handshaking = state, received == Self.serverFinished else {
                throw fail(.handshakeFailed("not the null server finished"))
            }
            state = .established
            return []
        }
    }

    package func encrypt(_ plaintext: ArraySlice<UInt8>) throws(TLSError) -> [UInt8] {
        try established()
        guard plaintext.count <= TLSSession.maximumPlaintextPerRecord else { throw .recordTooLarge }
        guard !plaintext.isEmpty else { return [] }
        let length = 8 + plaintext.count + Self.tagLength
        var record: [UInt8] = []
        record.reserveCapacity(5 + length)
        record += [23, 3, 3, UInt8(length >> 8), UInt8(length & 0xFF)]
        for shift in stride(from: 56, through: 0, by: -8) { record.append(UInt8(truncatingIfNeeded: sequenceOut >> UInt64(shift))) }
        record += plaintext
        record += repeatElement(0, count: Self.tagLength)
        sequenceOut &+= 1
        return record
    }

    package func decrypt(_ record: [UInt8]) throws(TLSError) -> [UInt8] {
        try established()
        guard !record.isEmpty else { return [] }
        guard record.count >= 5 else { throw fail(.decryptFailed("frame ends inside a TLS record")) }
        let length = Int(record[3]) << 8 | Int(record[4])
        guard record.count == 5 + length else { throw fail(.decryptFailed("frame ends inside a TLS record")) }
        guard record[1] == 3, record[2] == 3 else { throw fail(.decryptFailed("wrong version number")) }
        switch record[0] {
        case 23: break
        case 21: throw fail(.closedByPeer)
        case 22: throw fail(.decryptFailed("peer started a post-handshake exchange (renegotiation), which is refused"))
        default: throw fail(.decryptFailed("wrong record type \(record[0])"))
        }
        guard length >= 8 + Self.tagLength else { throw fail(.decryptFailed("record too short for a nonce and a tag")) }
        var nonce: UInt64 = 0
        for index in 5..<Self.prefixLength { nonce = nonce << 8 | UInt64(record[index]) }
        guard nonce == sequenceIn else { throw fail(.decryptFailed("bad record mac (record \(nonce), expected \(sequenceIn))")) }
        sequenceIn &+= 1
        return Array(record[Self.prefixLength..<(record.count - Self.tagLength)])
    }

    private func usable() throws(TLSError) {
        if case .failed(let error) = state { throw error }
    }

    private func established() throws(TLSError) {
        switch state {
        case .established: return
        case .failed(let error): throw error
        case .idle, .handshaking: throw .notEstablished
        }
    }

    private func fail(_ error: TLSError) -> TLSError {
        state = .failed(error)
        return error
    }
}
