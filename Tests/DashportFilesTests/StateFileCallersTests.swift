@testable import DashportSession
import DashportFiles
import DashportTestSupport
@testable import DashportServer
import DashportTLS
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 11 #5 through the callers that start a server: a FIFO where `server-key.pem` or
/// `session/session.json` should be made start-up hang forever. Each call runs on a detached
/// thread (`finishesOnAThread`, from DashportTestSupport) so a regression fails instead of hanging.
@Suite struct StateFileCallersTests {
    @Test func aFIFOInPlaceOfTheServerKeyIsRefusedByName() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let key = try scratch.fifo(TLSIdentity.keyFileName)
        let directory = scratch.path
        let outcome = try await finishesOnAThread(release: releaseFIFO(key)) {
            Result { () throws(TLSError) in try TLSIdentity.loadOrCreate(stateDirectory: directory) }
        }
        guard case .failure(.identity(let file, let reason)) = outcome else {
            Issue.record("expected an identity error, got \(outcome)")
            return
        }
        #expect(file == key)
        #expect(reason.hasSuffix("it is a FIFO, not a regular file"))
    }

    @Test func aFIFOInPlaceOfTheSessionFileIsCorruptNotAHang() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let store = SessionStore(directory: URL(fileURLWithPath: scratch.path))
        let fifo = try scratch.fifo(store.fileName)
        let loaded = try await finishesOnAThread(release: releaseFIFO(fifo)) { store.load() }
        #expect(loaded == .corrupt("the session file cannot be read: cannot read \(fifo): it is a FIFO, not a regular file"))
    }

    @Test func theSessionDirectoryIsCreated0700AndItsFile0600() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let store = SessionStore(directory: URL(fileURLWithPath: scratch.file("session")))
        try store.save(
            PersistedSession(
                version: PersistedSession.currentVersion, savedAtMs: 0,
                snapshot: SessionSnapshot(playbackState: PlaybackState(), mediaItem: .none, queue: .empty)))
        #expect(Files.status(scratch.file("session"))?.mode == 0o700)
        #expect(Files.status(store.fileURL.path)?.mode == 0o600)
        guard case .loaded = store.load() else {
            Issue.record("the saved session did not load")
            return
        }
    }
}

/// The CA file (`--ca-file`) is configured input, not state: a symbolic link (as in
/// /etc/ssl/certs) is followed, but what it leads to must be a regular file, read without blocking.
@Suite struct CAFileReadTests {
    @Test func aFIFOAsTheCAFileIsRefusedByNameWithoutBlocking() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let fifo = try scratch.fifo("ca.pem")
        var configuration = ServerConfiguration()
        configuration.caFile = fifo
        let outcome = try await finishesOnAThread(release: releaseFIFO(fifo)) { [configuration] in
            Result { () throws(TLSError) in try DashportServer.peerPolicy(configuration) }
        }
        guard case .failure(.configuration(let reason)) = outcome else {
            Issue.record("expected a configuration error, got \(outcome)")
            return
        }
        #expect(reason == "cannot load CA file \(fifo): cannot read \(fifo): it is a FIFO, not a regular file")
    }

    @Test func aSymbolicLinkToTheCAFileIsFollowed() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        try Files.writeAtomically(Array("-----BEGIN CERTIFICATE-----\n".utf8), to: scratch.file("real.pem"))
        #expect(symlink(scratch.file("real.pem"), scratch.file("ca.pem")) == 0)
        var configuration = ServerConfiguration()
        configuration.caFile = scratch.file("ca.pem")
        guard case .certificateAuthority(let pem, let source) = try DashportServer.peerPolicy(configuration) else {
            Issue.record("expected a CA policy")
            return
        }
        #expect(pem == Array("-----BEGIN CERTIFICATE-----\n".utf8))
        #expect(source == scratch.file("ca.pem"))
    }
}
