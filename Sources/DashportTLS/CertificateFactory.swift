import CDashportSSL

/// What certificate to build. The public API only makes self-signed v3 server certificates; the
/// other shapes (a CA, a CA-signed leaf, X.509 v1, a BER validity time) exist so tests can play
/// every kind of head unit certificate against the server's policies (package-visible for the
/// shared test identities in `DashportTestSupport`'s `TestTLS`).
package struct CertificateSpec {
    package enum Version { case v1, v3 }

    package var commonName: String
    package var organization: String?
    package var version: Version
    /// v3 only: `basicConstraints CA:TRUE` and `keyUsage keyCertSign, cRLSign`.
    package var isCertificateAuthority: Bool
    /// Starts a day in the past so a peer whose clock is a little behind still accepts it.
    package var notBeforeOffsetSeconds: Int
    /// Twenty years: server identities are long-lived and pinned by fingerprint, never rotated.
    package var lifetimeSeconds: Int
    /// Raw ASN.1 time text for notBefore, kept byte for byte. `"140704000000-0700"` reproduces the
    /// UTCTime-with-offset (legal BER, not DER) of the widely reused head-unit cert (aap-protocol §8.6).
    package var rawNotBefore: String?

    package init(
        commonName: String, organization: String? = "Dashport", version: Version = .v3, isCertificateAuthority: Bool = false,
        notBeforeOffsetSeconds: Int = -86_400, lifetimeSeconds: Int = 20 * 365 * 86_400, rawNotBefore: String? = nil
    ) {
        self.commonName = commonName
        self.organization = organization
        self.version = version
        self.isCertificateAuthority = isCertificateAuthority
        self.notBeforeOffsetSeconds = notBeforeOffsetSeconds
        self.lifetimeSeconds = lifetimeSeconds
        self.rawNotBefore = rawNotBefore
    }
}

enum CertificateFactory {
    /// Builds and signs a certificate for `key`: self-signed, or signed by `issuer` when given.
    static func make(
        _ spec: CertificateSpec,
        key: PrivateKey,
        issuer: (certificate: X509Certificate, key: PrivateKey)? = nil
    ) throws(TLSError) -> X509Certificate {
        guard let x509 = X509_new() else { throw .library("X509_new: \(OpenSSLErrorQueue.drain())") }
        let certificate = X509Certificate(taking: x509)  // frees it on every throw below

        guard X509_set_version(x509, spec.version == .v1 ? 0 : 2) == 1,
            ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), randomSerial()) == 1,
            X509_set_pubkey(x509, key.pointer) == 1
        else { throw .library("certificate fields: \(OpenSSLErrorQueue.describe(or: "failed"))") }

        if let raw = spec.rawNotBefore {
            guard ASN1_TIME_set_string(X509_getm_notBefore(x509), raw) == 1 else {
                throw .configuration("certificate notBefore \"\(raw)\" is not an ASN.1 time")
            }
        } else {
            guard X509_gmtime_adj(X509_getm_notBefore(x509), spec.notBeforeOffsetSeconds) != nil else {
                throw .library("certificate notBefore: \(OpenSSLErrorQueue.describe(or: "failed"))")
            }
        }
        guard X509_gmtime_adj(X509_getm_notAfter(x509), spec.lifetimeSeconds) != nil else {
            throw .library("certificate notAfter: \(OpenSSLErrorQueue.describe(or: "failed"))")
        }

        let subject = X509_get_subject_name(x509)
        try addName("CN", spec.commonName, to: subject)
        if let organization = spec.organization { try addName("O", organization, to: subject) }
        let issuerName = issuer.map { X509_get_subject_name($0.certificate.pointer) } ?? subject
        guard X509_set_issuer_name(x509, issuerName) == 1 else {
            throw .library("certificate issuer: \(OpenSSLErrorQueue.describe(or: "failed"))")
        }

        if spec.version == .v3 {
            let issuerCertificate = issuer?.certificate.pointer ?? x509
            try addExtension(
                NID_basic_constraints, spec.isCertificateAuthority ? "critical,CA:TRUE" : "critical,CA:FALSE",
                to: x509, issuer: issuerCertificate)
            if spec.isCertificateAuthority {
                try addExtension(NID_key_usage, "critical,keyCertSign,cRLSign", to: x509, issuer: issuerCertificate)
            }
            try addExtension(NID_subject_key_identifier, "hash", to: x509, issuer: issuerCertificate)
            if issuer != nil {
                try addExtension(NID_authority_key_identifier, "keyid", to: x509, issuer: issuerCertificate)
            }
        }

        guard X509_sign(x509, issuer?.key.pointer ?? key.pointer, EVP_sha256()) > 0 else {
            throw .library("certificate signature: \(OpenSSLErrorQueue.describe(or: "failed"))")
        }
        return certificate
    }

    /// A positive 63-bit random serial, so two identities never share issuer+serial.
    private static func randomSerial() -> UInt64 {
        var serial: UInt64 = 0
        let ok = withUnsafeMutableBytes(of: &serial) { RAND_bytes($0.baseAddress, Int32($0.count)) }
        // Without randomness, fall back to a fixed serial: only uniqueness suffers, not security,
        // since identities are pinned by fingerprint.
        return ok == 1 ? (serial & 0x7FFF_FFFF_FFFF_FFFF) | 1 : 1
    }

    private static func addName(_ field: String, _ value: String, to name: OpaquePointer?) throws(TLSError) {
        let bytes = Array(value.utf8)
        let ok = bytes.withUnsafeBufferPointer { buffer in
            X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, buffer.baseAddress, Int32(buffer.count), -1, 0)
        }
        guard ok == 1 else {
            throw .configuration("certificate \(field) \"\(value)\": \(OpenSSLErrorQueue.describe(or: "rejected"))")
        }
    }

    private static func addExtension(
        _ nid: Int32, _ value: String, to x509: OpaquePointer, issuer: OpaquePointer
    ) throws(TLSError) {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer, x509, nil, nil, 0)
        guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
            throw .library("certificate extension \(value): \(OpenSSLErrorQueue.describe(or: "failed"))")
        }
        defer { X509_EXTENSION_free(ext) }
        guard X509_add_ext(x509, ext, -1) == 1 else {
            throw .library("certificate extension \(value): \(OpenSSLErrorQueue.describe(or: "failed"))")
        }
    }
}
