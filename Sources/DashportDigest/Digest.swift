internal import CDashportSSL

/// SHA-256 from libcrypto (the OpenSSL Dashport links for TLS anyway), for certificate
/// fingerprints and artwork keys. No C type leaves this file.
public enum SHA256 {
    /// The 32-byte digest of `bytes`.
    public static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        var length: UInt32 = 0
        let ok = Array(bytes).withUnsafeBytes { raw in
            EVP_Digest(raw.baseAddress, raw.count, &digest, &length, EVP_sha256(), nil)
        }
        // EVP_Digest with SHA-256 fails only when OpenSSL cannot allocate a context; there is no
        // digest to give then, and continuing with a wrong one would silently break pins and keys.
        precondition(ok == 1 && length == SHA256_DIGEST_LENGTH, "OpenSSL could not compute SHA-256 (out of memory)")
        return digest
    }

    /// The digest as 64 lowercase hex digits: the fingerprint format used for pinning and in logs.
    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        Hex.string(digest(bytes))
    }
}
