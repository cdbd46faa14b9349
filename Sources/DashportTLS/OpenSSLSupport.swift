import CDashportSSL

// Small owners and helpers around OpenSSL objects. Everything here is internal: no OpenSSL type
// leaves the module. Each owner frees its object exactly once, in deinit.

/// OpenSSL's per-thread error queue, read and cleared so one call's errors never leak into the
/// next call (or into another connection served by the same thread).
enum OpenSSLErrorQueue {
    /// Empties the queue and returns its entries joined by `; ` (empty if there were none).
    @discardableResult
    static func drain() -> String {
        var parts: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            parts.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return parts.joined(separator: "; ")
    }

    /// Empties the queue only when it holds an entry. The record path (`TLSSession`'s `encrypt` and
    /// `decrypt`) runs once per frame each way, and `ERR_clear_error` walks and
    /// resets every slot of the thread's queue each time: 2.4% of a reactor's samples serving
    /// memoised answers (issue 22, item 2). `ERR_peek_error` only reads the queue's ends.
    static func clearIfNotEmpty() {
        if ERR_peek_error() != 0 { ERR_clear_error() }
    }

    /// The queue's text, or `fallback` when OpenSSL recorded nothing.
    static func describe(or fallback: String) -> String {
        let text = drain()
        return text.isEmpty ? fallback : text
    }
}

/// A growing memory BIO used to hand bytes to OpenSSL and read its output.
enum MemoryBIO {
    /// Appends `bytes` to `bio`. Memory BIOs take everything or fail only when out of memory.
    static func write(_ bytes: [UInt8], to bio: OpaquePointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let chunk = min(bytes.count - offset, Int(Int32.max))
            let written = bytes.withUnsafeBytes { raw in
                BIO_write(bio, raw.baseAddress.map { $0 + offset }, Int32(chunk))
            }
            guard written > 0 else { return false }
            offset += Int(written)
        }
        return true
    }

    /// Reads everything `bio` holds, so a whole handshake flight comes out as one array.
    ///
    /// Each chunk is read straight into uninitialised capacity: every TLS record the server sends
    /// (an audio DATA is one of 8 KiB, 23 a second per car) comes out here, and filling the buffer
    /// with zeros first cost more than copying it.
    static func drain(_ bio: OpaquePointer) -> [UInt8] {
        var output: [UInt8] = []
        while true {
            let pending = BIO_ctrl_pending(bio)
            guard pending > 0 else { return output }
            let chunk = min(pending, Int(Int32.max))
            var read: Int32 = 0
            let piece = [UInt8](unsafeUninitializedCapacity: chunk) { buffer, count in
                read = BIO_read(bio, buffer.baseAddress, Int32(chunk))
                count = max(Int(read), 0)  // BIO_read initialised exactly that many bytes
            }
            if output.isEmpty {
                output = piece  // the usual case: one chunk, no second copy
            } else {
                output.append(contentsOf: piece)
            }
            if read <= 0 { return output }
        }
    }

    /// A fresh read-only memory BIO over `bytes` for PEM parsing. The caller frees it.
    static func reading(_ bytes: [UInt8]) -> OpaquePointer? {
        // BIO_new_mem_buf does not copy; BIO_new + BIO_write does, so `bytes` may go away.
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        guard write(bytes, to: bio) else {
            BIO_free(bio)
            return nil
        }
        return bio
    }
}

/// Owns one `X509`.
final class X509Certificate {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { X509_free(pointer) }

    /// Parses DER; rejects trailing bytes. `nil` when it is not one certificate.
    convenience init?(der: [UInt8]) {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let x509 = d2i_X509(nil, &cursor, buffer.count) else { return nil }
            guard cursor == base + buffer.count else {
                X509_free(x509)
                return nil
            }
            return x509
        }
        guard let parsed else { return nil }
        self.init(taking: parsed)
    }

    /// Parses the first PEM `CERTIFICATE` block. `nil` when there is none.
    convenience init?(pem: [UInt8]) {
        guard let bio = MemoryBIO.reading(pem) else { return nil }
        defer { BIO_free(bio) }
        guard let x509 = dashport_pem_read_x509(bio) else { return nil }
        self.init(taking: x509)
    }

    var der: [UInt8] {
        let length = i2d_X509(pointer, nil)
        guard length > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_X509(pointer, &cursor)
        }
        return written == length ? bytes : []
    }

    var pem: [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { return [] }
        defer { BIO_free(bio) }
        guard PEM_write_bio_X509(bio, pointer) == 1 else { return [] }
        return MemoryBIO.drain(bio)
    }
}

/// Owns one `EVP_PKEY` (a private key).
final class PrivateKey {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    /// Parses an unencrypted PEM private key (PKCS#8 or traditional). `nil` when there is none or
    /// it is encrypted (never prompts for a password).
    convenience init?(pem: [UInt8]) {
        guard let bio = MemoryBIO.reading(pem) else { return nil }
        defer { BIO_free(bio) }
        guard let key = dashport_pem_read_private_key(bio) else { return nil }
        self.init(taking: key)
    }

    /// A fresh RSA key. 2048 bits is what head units themselves use and what they expect.
    static func generateRSA(bits: Int32 = 2048) throws(TLSError) -> PrivateKey {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nil) else {
            throw .library("EVP_PKEY_CTX_new_id: \(OpenSSLErrorQueue.describe(or: "no context"))")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
            EVP_PKEY_CTX_set_rsa_keygen_bits(context, bits) > 0,
            EVP_PKEY_keygen(context, &key) == 1,
            let key
        else {
            throw .library("RSA key generation: \(OpenSSLErrorQueue.describe(or: "failed"))")
        }
        return PrivateKey(taking: key)
    }

    /// Unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    var pem: [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { return [] }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil) == 1 else { return [] }
        return MemoryBIO.drain(bio)
    }
}
