import DashportTestSupport
import DashportDigest
@testable import DashportTLS
import CDashportSSL
import DashportLog
import Foundation
import Testing

@Suite struct IdentityTests {
    @Test func fingerprintIsLowercaseHexSHA256OfTheDER() throws {
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let identity = try TestTLS.phoneIdentity.get()
        #expect(identity.fingerprintSHA256 == SHA256.hex(identity.certificateDER))
        #expect(identity.fingerprintSHA256.count == 64)
        #expect(identity.fingerprintSHA256.allSatisfy { "0123456789abcdef".contains($0) })
    }

    @Test func generatedIdentitiesAreDistinctAndRoundTrip() throws {
        let server = try TestTLS.phoneIdentity.get()
        #expect(server.fingerprintSHA256 != (try TestTLS.carIdentity.get()).fingerprintSHA256)
        let copy = try TLSIdentity(certificateDER: server.certificateDER, privateKeyPEM: server.privateKeyPEM)
        #expect(copy.fingerprintSHA256 == server.fingerprintSHA256)
        let fromPEM = try TLSIdentity(certificatePEM: Array(server.certificatePEM.utf8), privateKeyPEM: server.privateKeyPEM)
        #expect(fromPEM.certificateDER == server.certificateDER)
        #expect(server.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(String(decoding: server.privateKeyPEM, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"))
    }

    @Test func aKeyFromAnotherIdentityIsRefused() throws {
        let error = try #require(throws: TLSError.self) {
            try TLSIdentity(
                certificateDER: TestTLS.phoneIdentity.get().certificateDER, privateKeyPEM: TestTLS.carIdentity.get().privateKeyPEM)
        }
        #expect(error == .configuration("identity private key does not match its certificate"))
    }

    @Test func descriptionNeverShowsTheKey() throws {
        let identity = try TestTLS.phoneIdentity.get()
        #expect(identity.description == "TLSIdentity(sha256: \(identity.fingerprintSHA256))")
        #expect(!"\(identity)".contains("PRIVATE KEY"))
    }
}

@Suite struct EncryptedKeyTests {
    /// An encrypted key must fail at once; OpenSSL's default would prompt on the terminal.
    @Test func anEncryptedKeyIsRefusedWithoutPrompting() throws {
        let identity = try TestTLS.phoneIdentity.get()
        let key = try #require(PrivateKey(pem: identity.privateKeyPEM))
        let bio = try #require(BIO_new(BIO_s_mem()))
        defer { BIO_free(bio) }
        let password = Array("secret".utf8)
        let written = password.withUnsafeBufferPointer { buffer in
            PEM_write_bio_PKCS8PrivateKey(bio, key.pointer, EVP_aes_128_cbc(), buffer.baseAddress, Int32(buffer.count), nil, nil)
        }
        try #require(written == 1)
        let encrypted = MemoryBIO.drain(bio)
        #expect(String(decoding: encrypted, as: UTF8.self).contains("ENCRYPTED PRIVATE KEY"))

        #expect(!TLSIdentity.isPrivateKeyPEM(encrypted))
        #expect(TLSIdentity.isPrivateKeyPEM(identity.privateKeyPEM))
        #expect(throws: TLSError.self) {
            try TLSIdentity.selfSigned(privateKeyPEM: encrypted, commonName: "never")
        }
    }
}
