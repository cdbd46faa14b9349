import DashportFiles
public import DashportTLS

/// `dashport-hu --identity DIR`: one client certificate kept across runs, so a server that
/// listens off loopback can pin the emulator (`dashport serve --allow-fingerprint SHA256`).
extension TLSIdentity {
    /// The client's private key inside the identity directory (mode 0600).
    public static let clientKeyFileName = "client-key.pem"
    /// The client's certificate inside the identity directory (mode 0600).
    public static let clientCertificateFileName = "client-cert.pem"
    /// Common name of the client certificate made on first use.
    public static let clientCommonName = "dashport-hu"

    /// The identity kept in `directory`, and whether this call made it.
    ///
    /// First use: creates `directory` (0700; its parent must exist, so a mistyped parent is an
    /// error, not a new tree), generates an RSA-2048 key and a self-signed certificate and writes
    /// both (0600, atomically). Later uses load and check them. Anything unreadable, corrupt,
    /// mismatched or half there (a key without its certificate, or the reverse) is a
    /// ``TLSError/identity(file:reason:)`` naming the file and is never overwritten: a replaced
    /// key would break every server that pinned it.
    public static func loadOrCreateClient(directory: String) throws(TLSError) -> (identity: TLSIdentity, created: Bool) {
        do {
            _ = try Files.makeDirectory(directory)
        } catch {
            throw .identity(file: directory, reason: error.causeText)
        }
        let keyPath = Files.join(directory, clientKeyFileName)
        let certificatePath = Files.join(directory, clientCertificateFileName)
        switch (try present(keyPath), try present(certificatePath)) {
        case (true, true):
            let key = try contents(keyPath)
            guard isPrivateKeyPEM(key) else { throw .identity(file: keyPath, reason: "not an unencrypted PEM private key") }
            let certificate = try contents(certificatePath)
            guard isCertificatePEM(certificate) else { throw .identity(file: certificatePath, reason: "not a PEM certificate") }
            do {
                return (try TLSIdentity(certificatePEM: certificate, privateKeyPEM: key), false)
            } catch {
                throw .identity(file: certificatePath, reason: "does not belong to the key in \(keyPath)")
            }
        case (false, false):
            let identity = try generate(commonName: clientCommonName)
            try store(identity.privateKeyPEM, at: keyPath)
            try store(Array(identity.certificatePEM.utf8), at: certificatePath)
            return (identity, true)
        case (true, false):
            throw .identity(
                file: certificatePath, reason: "missing while \(keyPath) exists; restore it, or remove the key to make a new identity")
        case (false, true):
            throw .identity(
                file: keyPath,
                reason: "missing while \(certificatePath) exists; restore it, or remove the certificate to make a new identity")
        }
    }

    private static func present(_ path: String) throws(TLSError) -> Bool {
        do { return try Files.exists(path) } catch { throw .identity(file: path, reason: error.causeText) }
    }

    private static func contents(_ path: String) throws(TLSError) -> [UInt8] {
        do { return try Files.read(path, limit: 64 * 1024) } catch { throw .identity(file: path, reason: error.description) }
    }

    private static func store(_ bytes: [UInt8], at path: String) throws(TLSError) {
        do { try Files.writeAtomically(bytes, to: path, mode: 0o600) } catch { throw .identity(file: path, reason: error.description) }
    }
}
