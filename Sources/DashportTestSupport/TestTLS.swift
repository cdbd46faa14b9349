import DashportTLS

/// The TLS identities and contexts tests share, made in memory once per test process (RSA key
/// generation is the slow part). Nothing here touches the disk.
public enum TestTLS {
    /// The phone (server) identity every in-memory link and emulator test presents.
    public static let phoneIdentity = Result { () throws(TLSError) in try TLSIdentity.generate(commonName: "Dashport test phone") }
    /// The car (client) identity, presented as aasdk head units do.
    public static let carIdentity = Result { () throws(TLSError) in try TLSIdentity.generate(commonName: "Dashport test car") }

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
