import CDashportSSL

/// Checks and issuing over bytes, for whoever stores identities (the server's state directory): the
/// TLS layer never touches a file.
extension TLSIdentity {
    /// Whether `bytes` hold an unencrypted PEM private key.
    public static func isPrivateKeyPEM(_ bytes: [UInt8]) -> Bool {
        guard PrivateKey(pem: bytes) != nil else {
            OpenSSLErrorQueue.drain()
            return false
        }
        return true
    }

    /// Whether `bytes` hold a PEM X.509 certificate.
    public static func isCertificatePEM(_ bytes: [UInt8]) -> Bool {
        guard X509Certificate(pem: bytes) != nil else {
            OpenSSLErrorQueue.drain()
            return false
        }
        return true
    }

    /// A fresh self-signed certificate (as ``generate(commonName:)`` makes) for an existing key, so
    /// an identity whose certificate was lost keeps the key head units may have pinned.
    public static func selfSigned(privateKeyPEM: [UInt8], commonName: String) throws(TLSError) -> TLSIdentity {
        guard let key = PrivateKey(pem: privateKeyPEM) else {
            OpenSSLErrorQueue.drain()
            throw .configuration("identity private key is not an unencrypted PEM private key")
        }
        let certificate = try CertificateFactory.make(CertificateSpec(commonName: commonName), key: key)
        return try TLSIdentity(certificate: certificate, key: key)
    }
}
