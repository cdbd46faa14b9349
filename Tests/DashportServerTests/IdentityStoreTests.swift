import DashportFiles
import DashportLog
import DashportTestSupport
import DashportTLS
import Foundation
import Testing
@testable import DashportServer

/// The server's identity in its state directory: created once with private modes, reused, and never
/// silently replaced. The TLS layer only sees the bytes (DashportTLS is sans-IO).
@Suite struct IdentityStoreTests {
    /// `dashport fingerprint` reads only: a missing directory or an empty one is an error naming
    /// it, and nothing is created; an existing identity reads as the server's.
    @Test func loadExistingNeverCreatesAKey() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let typo = temporary.file("tpyo")
        #expect(
            throws: TLSError.identity(
                file: typo,
                reason: "no such directory, so no server identity (`dashport serve --state-dir \(typo)` creates one on its first run)")
        ) {
            try TLSIdentity.loadExisting(stateDirectory: typo)
        }
        #expect(Files.status(typo) == nil)
        let empty = temporary.file("empty")
        #expect(try Files.makeDirectory(empty))
        #expect(throws: TLSError.self) { try TLSIdentity.loadExisting(stateDirectory: empty) }
        #expect(try Files.list(empty).isEmpty)
        let made = try TLSIdentity.loadOrCreate(stateDirectory: empty)
        #expect(try TLSIdentity.loadExisting(stateDirectory: empty).fingerprintSHA256 == made.fingerprintSHA256)
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

    /// Issue 12: a missing `--state-dir` was created with all its parents, silently.
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
        try Data(try TestTLS.carIdentity.get().certificatePEM.utf8).write(to: URL(fileURLWithPath: path))
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

    /// A key others can read is no secret: refused, naming the file and the chmod that fixes it
    /// (it used to be used with a warning). A certificate others can change is refused the same way.
    @Test func aLooselyPermittedKeyOrCertificateIsRefusedWithTheFix() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let made = try TLSIdentity.loadOrCreate(stateDirectory: temporary.path)
        let key = temporary.file(TLSIdentity.keyFileName)
        let certificate = temporary.file(TLSIdentity.certificateFileName)
        chmod(key, 0o644)
        #expect(
            throws: TLSError.identity(
                file: key, reason: "other users can read it (mode 0644); chmod 0600 \(key)")
        ) { try TLSIdentity.loadOrCreate(stateDirectory: temporary.path) }
        chmod(key, 0o600)
        chmod(certificate, 0o666)
        #expect(
            throws: TLSError.identity(
                file: certificate, reason: "other users can write to it (mode 0666); chmod 0644 \(certificate)")
        ) { try TLSIdentity.loadOrCreate(stateDirectory: temporary.path) }
        chmod(certificate, 0o644)  // readable by all is fine: a certificate is public
        #expect(try TLSIdentity.loadOrCreate(stateDirectory: temporary.path).fingerprintSHA256 == made.fingerprintSHA256)
    }

    /// A state directory another user can write to lets them replace the key and certificate:
    /// refused at start with the chmod that fixes it, whether it is new to us or already holds an
    /// identity; `dashport fingerprint` (loadExisting) refuses it too.
    @Test(arguments: [0o777, 0o1777, 0o770, 0o702])
    func aStateDirectoryOthersCanWriteToIsRefused(mode: Int) throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        _ = try TLSIdentity.loadOrCreate(stateDirectory: temporary.path)
        chmod(temporary.path, mode_t(mode))
        let octal = "0" + String(mode, radix: 8)
        let expected = TLSError.identity(
            file: temporary.path,
            reason: "other users can write to it (mode \(octal)); chmod go-w \(temporary.path) (0700 is best)")
        #expect(throws: expected) { try TLSIdentity.loadOrCreate(stateDirectory: temporary.path) }
        #expect(throws: expected) { try TLSIdentity.loadExisting(stateDirectory: temporary.path) }
        chmod(temporary.path, 0o755)  // readable by others, writable by us alone: accepted
        _ = try TLSIdentity.loadOrCreate(stateDirectory: temporary.path)
    }

    /// The attack: another user owns the key and certificate (they replaced them with their own).
    /// The server refuses them instead of serving the attacker's certificate. Needs root to give a
    /// file to another user; skipped otherwise.
    @Test(.enabled(if: geteuid() == 0, "needs root to chown to another user"))
    func filesOrADirectoryOwnedByAnotherUserAreRefused() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        _ = try TLSIdentity.loadOrCreate(stateDirectory: temporary.path)
        let nobody: uid_t = 65534
        let certificate = temporary.file(TLSIdentity.certificateFileName)
        chown(certificate, nobody, gid_t(nobody))
        #expect(
            throws: TLSError.identity(
                file: certificate,
                reason: "it is owned by user 65534, not by this user (0); chown 0 \(certificate), or use a directory of this user's")
        ) { try TLSIdentity.loadOrCreate(stateDirectory: temporary.path) }
        chown(certificate, 0, 0)
        chown(temporary.path, nobody, gid_t(nobody))
        #expect(throws: TLSError.self) { try TLSIdentity.loadOrCreate(stateDirectory: temporary.path) }
        chown(temporary.path, 0, 0)
        _ = try TLSIdentity.loadOrCreate(stateDirectory: temporary.path)
    }

    @Test func anUnreadableCAFileIsAConfigurationErrorNamingIt() throws {
        var configuration = ServerConfiguration()
        configuration.caFile = "/nonexistent/dashport/ca.pem"
        let error = try #require(throws: TLSError.self) { try DashportServer.peerPolicy(configuration) }
        guard case .configuration(let reason) = error else {
            Issue.record("expected a configuration error, got \(error)")
            return
        }
        #expect(reason.contains("/nonexistent/dashport/ca.pem"))
    }

    @Test func theCAFileReachesTheTLSLayerAsBytes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("ca.pem")
        let pem = try TestTLS.phoneIdentity.get().certificatePEM
        try Data(pem.utf8).write(to: URL(fileURLWithPath: path))
        var configuration = ServerConfiguration()
        configuration.caFile = path
        #expect(try DashportServer.peerPolicy(configuration) == .certificateAuthority(pem: Array(pem.utf8), source: path))
    }
}
