public import DashportTLS

/// The TLS identities and contexts tests share, made in memory once per test process (RSA key
/// generation is the slow part): the phone, cars, and the certificate authorities of the peer-policy
/// tests. Nothing here touches the disk.
public enum TestTLS {
    /// The phone (server) identity every in-memory link and emulator test presents.
    public static let phoneIdentity = Result { () throws(TLSError) in try TLSIdentity.generate(commonName: "Dashport test phone") }
    /// The car (client) identity, presented as aasdk head units do.
    public static let carIdentity = Result { () throws(TLSError) in try TLSIdentity.generate(commonName: "Dashport test car") }

    /// A second car, for tests that need a certificate other than ``carIdentity``.
    public static let otherCarIdentity = Result { () throws(TLSError) in try TLSIdentity.generate(commonName: "Dashport other test car") }
    /// A certificate authority, as the car makers' (aap-protocol.md §2.3) that the phone may trust.
    public static let authority = Result { () throws(TLSError) in
        try TLSIdentity.generate(CertificateSpec(commonName: "Test Automotive Link CA", isCertificateAuthority: true))
    }
    /// An authority the phone does not trust.
    public static let otherAuthority = Result { () throws(TLSError) in
        try TLSIdentity.generate(CertificateSpec(commonName: "Other CA", isCertificateAuthority: true))
    }
    /// A car whose certificate ``authority`` signed.
    public static let authoritySignedCar = Result { () throws(TLSError) in
        try TLSIdentity.generate(CertificateSpec(commonName: "CA-signed head unit"), issuer: authority.get())
    }
    /// A car whose certificate ``otherAuthority`` signed.
    public static let otherAuthoritySignedCar = Result { () throws(TLSError) in
        try TLSIdentity.generate(CertificateSpec(commonName: "foreign head unit"), issuer: otherAuthority.get())
    }
    /// Like the head-unit certificate aasdk presents: X.509 v1, validity as UTCTime with an offset.
    public static let legacyCar = Result { () throws(TLSError) in
        try TLSIdentity.generate(
            CertificateSpec(
                commonName: "JVC-like head unit", version: .v1, lifetimeSeconds: 30 * 365 * 86_400,
                rawNotBefore: "140704000000-0700"))
    }

    /// Contexts are immutable and `Sendable`: built once.
    public static let phoneContext = Result { () throws(TLSError) in
        try TLSContext(.server(identity: phoneIdentity.get(), peerPolicy: .acceptAny))
    }
    public static let carContext = Result { () throws(TLSError) in
        try TLSContext(.client(identity: carIdentity.get()))
    }

    /// A fresh phone-side (server) session that accepts any head unit.
    public static func phoneSession() throws -> TLSSession {
        try TLSSession(context: phoneContext.get())
    }

    /// A phone-side session that only accepts head units whose certificate hash is in `pins`.
    public static func pinnedPhoneSession(pins: Set<String>) throws -> TLSSession {
        let context = try TLSContext(.server(identity: phoneIdentity.get(), peerPolicy: .pinnedSHA256(pins)))
        return try TLSSession(context: context)
    }

    /// A fresh car-side (client) session presenting ``carIdentity``.
    public static func carSession() throws -> TLSSession {
        try TLSSession(context: carContext.get())
    }

    /// The SHA-256 fingerprint of the car's certificate, as the phone reports it.
    public static func carFingerprint() throws -> String {
        try carIdentity.get().fingerprintSHA256
    }
}
