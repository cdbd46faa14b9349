import DashportTLS
import Testing

/// Certificates for the in-memory links, generated once per test process (RSA keygen is slow).
enum TestTLS {
    private static let phoneIdentity = Result { try TLSIdentity.generate(commonName: "Dashport test phone") }
    private static let carIdentity = Result { try TLSIdentity.generate(commonName: "Dashport test car") }

    /// Server contexts are built once: they are immutable and `Sendable`.
    private static let serverContext = Result {
        try TLSContext(.server(identity: phoneIdentity.get(), peerPolicy: .acceptAny))
    }
    private static let clientContext = Result {
        try TLSContext(.client(identity: carIdentity.get()))
    }

    /// A fresh phone-side (server) session.
    static func phoneSession() throws -> TLSSession {
        try TLSSession(context: serverContext.get())
    }

    /// A phone-side session that only accepts head units whose certificate hash is in `pins`.
    static func pinnedPhoneSession(pins: Set<String>) throws -> TLSSession {
        let context = try TLSContext(.server(identity: phoneIdentity.get(), peerPolicy: .pinnedSHA256(pins)))
        return try TLSSession(context: context)
    }

    /// A fresh car-side (client) session presenting a client certificate, as aasdk does.
    static func carSession() throws -> TLSSession {
        try TLSSession(context: clientContext.get())
    }

    /// The SHA-256 fingerprint of the car's certificate, as the phone reports it.
    static func carFingerprint() throws -> String {
        try carIdentity.get().fingerprintSHA256
    }
}
