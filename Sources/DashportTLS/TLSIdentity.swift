import DashportDigest
import CDashportSSL

/// A certificate and its private key: what one side of the link presents in the handshake.
///
/// The phone side has one long-lived identity, generated on first run and kept in the state
/// directory (``loadOrCreate(stateDirectory:logger:)``); head units pin it by
/// ``fingerprintSHA256``. The car emulator and tests make throwaway ones with ``generate(commonName:)``.
public struct TLSIdentity: Sendable, CustomStringConvertible {
    /// The certificate, DER-encoded exactly as it goes on the wire.
    public let certificateDER: [UInt8]
    /// The unencrypted private key, PKCS#8 PEM. Secret: never log it.
    public let privateKeyPEM: [UInt8]
    /// Lowercase hex SHA-256 over ``certificateDER``, 64 characters.
    public let fingerprintSHA256: String

    /// Checks that the certificate parses and that the key belongs to it.
    public init(certificateDER: [UInt8], privateKeyPEM: [UInt8]) throws(TLSError) {
        guard let certificate = X509Certificate(der: certificateDER) else {
            throw .configuration("identity certificate is not one DER X.509 certificate")
        }
        guard let key = PrivateKey(pem: privateKeyPEM) else {
            OpenSSLErrorQueue.drain()
            throw .configuration("identity private key is not an unencrypted PEM private key")
        }
        try self.init(certificate: certificate, key: key)
    }

    /// The same from a PEM certificate (`-----BEGIN CERTIFICATE-----`), as stored on disk.
    public init(certificatePEM: [UInt8], privateKeyPEM: [UInt8]) throws(TLSError) {
        guard let certificate = X509Certificate(pem: certificatePEM) else {
            OpenSSLErrorQueue.drain()
            throw .configuration("identity certificate is not a PEM X.509 certificate")
        }
        guard let key = PrivateKey(pem: privateKeyPEM) else {
            OpenSSLErrorQueue.drain()
            throw .configuration("identity private key is not an unencrypted PEM private key")
        }
        try self.init(certificate: certificate, key: key)
    }

    init(certificate: X509Certificate, key: PrivateKey) throws(TLSError) {
        guard X509_check_private_key(certificate.pointer, key.pointer) == 1 else {
            OpenSSLErrorQueue.drain()
            throw .configuration("identity private key does not match its certificate")
        }
        let der = certificate.der
        let pem = key.pem
        guard !der.isEmpty, !pem.isEmpty else { throw .library("cannot encode identity: \(OpenSSLErrorQueue.drain())") }
        self.certificateDER = der
        self.privateKeyPEM = pem
        self.fingerprintSHA256 = SHA256.hex(der)
    }

    /// A fresh RSA-2048 key and a self-signed X.509 v3 certificate (sha256WithRSA, valid from a day
    /// ago for twenty years). Head units do not verify the phone's certificate (aap-protocol §2.6).
    public static func generate(commonName: String) throws(TLSError) -> TLSIdentity {
        try generate(CertificateSpec(commonName: commonName))
    }

    /// Builds an identity of any shape `spec` describes, self-signed or signed by `issuer`.
    package static func generate(_ spec: CertificateSpec, issuer: TLSIdentity? = nil) throws(TLSError) -> TLSIdentity {
        defer { ERR_clear_error() }
        let key = try PrivateKey.generateRSA()
        let signer = try issuer.map { (identity) throws(TLSError) in try identity.openSSLObjects() }
        let certificate = try CertificateFactory.make(spec, key: key, issuer: signer)
        return try TLSIdentity(certificate: certificate, key: key)
    }

    /// The certificate as PEM text, for a CA file or for pinning tools.
    public var certificatePEM: String {
        let pem = X509Certificate(der: certificateDER)?.pem ?? []
        return String(decoding: pem, as: UTF8.self)
    }

    /// Never prints the key.
    public var description: String { "TLSIdentity(sha256: \(fingerprintSHA256))" }

    /// Fresh OpenSSL objects for this identity (the caller's to keep or drop).
    func openSSLObjects() throws(TLSError) -> (certificate: X509Certificate, key: PrivateKey) {
        guard let certificate = X509Certificate(der: certificateDER), let key = PrivateKey(pem: privateKeyPEM) else {
            throw .library("cannot decode identity: \(OpenSSLErrorQueue.describe(or: "failed"))")
        }
        return (certificate, key)
    }
}
