import DashportDigest
@testable import DashportTLS
import DashportFiles
import CDashportSSL
import DashportLog
import Foundation
import Testing

@Suite struct IdentityTests {
    @Test func fingerprintIsLowercaseHexSHA256OfTheDER() throws {
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let identity = try Fixtures.server()
        #expect(identity.fingerprintSHA256 == SHA256.hex(identity.certificateDER))
        #expect(identity.fingerprintSHA256.count == 64)
        #expect(identity.fingerprintSHA256.allSatisfy { "0123456789abcdef".contains($0) })
    }

    @Test func generatedIdentitiesAreDistinctAndRoundTrip() throws {
        let server = try Fixtures.server()
        #expect(server.fingerprintSHA256 != (try Fixtures.client()).fingerprintSHA256)
        let copy = try TLSIdentity(certificateDER: server.certificateDER, privateKeyPEM: server.privateKeyPEM)
        #expect(copy.fingerprintSHA256 == server.fingerprintSHA256)
        let fromPEM = try TLSIdentity(certificatePEM: Array(server.certificatePEM.utf8), privateKeyPEM: server.privateKeyPEM)
        #expect(fromPEM.certificateDER == server.certificateDER)
        #expect(server.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(String(decoding: server.privateKeyPEM, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"))
    }

    @Test func aKeyFromAnotherIdentityIsRefused() throws {
        let error = try #require(throws: TLSError.self) {
            try TLSIdentity(certificateDER: Fixtures.server().certificateDER, privateKeyPEM: Fixtures.client().privateKeyPEM)
        }
        #expect(error == .configuration("identity private key does not match its certificate"))
    }

    @Test func descriptionNeverShowsTheKey() throws {
        let identity = try Fixtures.server()
        #expect(identity.description == "TLSIdentity(sha256: \(identity.fingerprintSHA256))")
        #expect(!"\(identity)".contains("PRIVATE KEY"))
    }

    @Test func loadOrCreateCreatesPrivateFilesAndReusesThem() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.file("tls")
        let sink = CollectingSink()
        let logger = Logger(label: "tls", level: .info, sink: sink)

        let first = try TLSIdentity.loadOrCreate(stateDirectory: directory, logger: logger)
        let keyPath = directory + "/" + TLSIdentity.keyFileName
        let certificatePath = directory + "/" + TLSIdentity.certificateFileName
        #expect(Files.status(directory)?.mode == 0o700)
        #expect(Files.status(keyPath)?.mode == 0o600)
        #expect(Files.status(certificatePath)?.mode == 0o600)
        #expect(try Files.read(keyPath, limit: 1 << 16) == first.privateKeyPEM)
        #expect(sink.contains(.notice, "generated server identity"))
        #expect(sink.contains(.notice, "created the state directory"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)

        let second = try TLSIdentity.loadOrCreate(stateDirectory: directory, logger: logger)
        #expect(second.fingerprintSHA256 == first.fingerprintSHA256)
        #expect(second.privateKeyPEM == first.privateKeyPEM)
        #expect(sink.contains(.info, "loaded server identity"))

        // The stored identity serves a real handshake with the same fingerprint.
        let server = try TLSSession(context: TLSContext(.server(identity: second, peerPolicy: .acceptAny)))
        let client = try TLSSession(context: TLSContext(.client(identity: nil)))
        let flight1 = try server.handshake(received: client.startHandshake())
        let flight3 = try server.handshake(received: client.handshake(received: flight1))
        _ = try client.handshake(received: flight3)
        #expect(client.peerFingerprintSHA256 == first.fingerprintSHA256)
    }

    @Test(arguments: [TLSIdentity.keyFileName, TLSIdentity.certificateFileName])
    func aCorruptFileIsReportedByNameAndLeftAlone(corrupted: String) throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        _ = try TLSIdentity.loadOrCreate(stateDirectory: temporary.path)
        let path = temporary.file(corrupted)
        let garbage = Array("-----BEGIN PRIVATE KEY-----\nnot base64 at all\n".utf8)
        try Data(garbage).write(to: URL(fileURLWithPath: path))

        let error = try #require(throws: TLSError.self) { try TLSIdentity.loadOrCreate(stateDirectory: temporary.path) }
        guard case .identity(let file, let reason) = error else {
            Issue.record("expected an identity error, got \(error)")
            return
        }
        #expect(file == path)
        #expect(!reason.isEmpty)
        #expect(error.description.contains(path))
        #expect(try Files.read(path, limit: 1 << 16) == garbage)
    }

    @Test func aStateDirectoryWhoseParentIsMissingIsRefusedNotCreatedWithItsParents() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.file("missing/state")
        let error = try #require(throws: TLSError.self) { try TLSIdentity.loadOrCreate(stateDirectory: directory) }
        #expect(error.description.contains("parent directory \(temporary.file("missing")) does not exist"))
        #expect(Files.status(temporary.file("missing")) == nil)
    }

    @Test func aCertificateOfAnotherKeyIsReportedByName() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        _ = try TLSIdentity.loadOrCreate(stateDirectory: temporary.path)
        let path = temporary.file(TLSIdentity.certificateFileName)
        try Data(try Fixtures.client().certificatePEM.utf8).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: TLSError.self) { try TLSIdentity.loadOrCreate(stateDirectory: temporary.path) }
        guard case .identity(let file, _) = error else {
            Issue.record("expected an identity error, got \(error)")
            return
        }
        #expect(file == path)
    }

    @Test func aMissingCertificateIsReissuedForTheSameKey() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let first = try TLSIdentity.loadOrCreate(stateDirectory: temporary.path)
        try FileManager.default.removeItem(atPath: temporary.file(TLSIdentity.certificateFileName))
        let second = try TLSIdentity.loadOrCreate(stateDirectory: temporary.path)
        #expect(second.privateKeyPEM == first.privateKeyPEM)
        #expect(second.fingerprintSHA256 != first.fingerprintSHA256)
        #expect(Files.status(temporary.file(TLSIdentity.certificateFileName))?.mode == 0o600)
        #expect(try TLSIdentity.loadOrCreate(stateDirectory: temporary.path).fingerprintSHA256 == second.fingerprintSHA256)
    }

    @Test func aMissingKeyNextToACertificateIsAnErrorNamingTheKey() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        _ = try TLSIdentity.loadOrCreate(stateDirectory: temporary.path)
        let keyPath = temporary.file(TLSIdentity.keyFileName)
        try FileManager.default.removeItem(atPath: keyPath)
        let error = try #require(throws: TLSError.self) { try TLSIdentity.loadOrCreate(stateDirectory: temporary.path) }
        guard case .identity(let file, _) = error else {
            Issue.record("expected an identity error, got \(error)")
            return
        }
        #expect(file == keyPath)
        #expect(!FileManager.default.fileExists(atPath: keyPath))
    }

    @Test func aFileWhereTheDirectoryShouldBeIsAnError() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let path = temporary.file("not-a-directory")
        try Data([1]).write(to: URL(fileURLWithPath: path))
        #expect(throws: TLSError.identity(file: path, reason: "it exists but is not a directory")) {
            try TLSIdentity.loadOrCreate(stateDirectory: path)
        }
    }

    @Test func aLooselyPermittedKeyIsUsedWithAWarning() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        _ = try TLSIdentity.loadOrCreate(stateDirectory: temporary.path)
        chmod(temporary.file(TLSIdentity.keyFileName), 0o644)
        let sink = CollectingSink()
        _ = try TLSIdentity.loadOrCreate(stateDirectory: temporary.path, logger: Logger(label: "tls", sink: sink))
        #expect(sink.contains(.warning, "readable by other users"))
    }
}

@Suite struct EncryptedKeyTests {
    /// An encrypted key must fail at once; OpenSSL's default would prompt on the terminal.
    @Test func anEncryptedKeyFileIsRefusedWithoutPrompting() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        _ = try TLSIdentity.loadOrCreate(stateDirectory: temporary.path)
        let keyPath = temporary.file(TLSIdentity.keyFileName)
        let key = try #require(PrivateKey(pem: Files.read(keyPath, limit: 1 << 16)))
        let bio = try #require(BIO_new(BIO_s_mem()))
        defer { BIO_free(bio) }
        let password = Array("secret".utf8)
        let written = password.withUnsafeBufferPointer { buffer in
            PEM_write_bio_PKCS8PrivateKey(bio, key.pointer, EVP_aes_128_cbc(), buffer.baseAddress, Int32(buffer.count), nil, nil)
        }
        try #require(written == 1)
        let encrypted = MemoryBIO.drain(bio)
        #expect(String(decoding: encrypted, as: UTF8.self).contains("ENCRYPTED PRIVATE KEY"))
        try Data(encrypted).write(to: URL(fileURLWithPath: keyPath))

        #expect(throws: TLSError.identity(file: keyPath, reason: "not an unencrypted PEM private key")) {
            try TLSIdentity.loadOrCreate(stateDirectory: temporary.path)
        }
    }
}
