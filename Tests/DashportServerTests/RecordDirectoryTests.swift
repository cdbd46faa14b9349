import DashportFiles
import DashportRecording
import DashportTestSupport
import Foundation
import Testing
@testable import DashportServer

/// `--record-dir`: recordings hold what the cars asked for, so only the server's user may read
/// them, from the moment they exist, and nobody else may steer where they are written.
@Suite struct RecordDirectoryTests {
    /// A directory others can write to (or, as root, one another user owns) is refused at start,
    /// naming the fix; a missing one is made 0700 with its parents; a private one is used.
    @Test func aSharedRecordDirectoryIsRefusedAtStart() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let shared = temporary.file("shared")
        try Files.makeDirectory(shared, mode: 0o777)
        #expect(
            throws: ConfigurationError(
                "--record-dir \(shared): other users can write to it (mode 0777); chmod go-w \(shared) (0700 is best)")
        ) { try SessionFiles.prepare(shared) }
        let fresh = temporary.file("a/b/records")
        #expect(try SessionFiles.prepare(fresh) == fresh)
        #expect(Files.status(fresh)?.mode == 0o700)
        chmod(shared, 0o700)
        #expect(try SessionFiles.prepare(shared) == shared)
        if geteuid() == 0 {
            chown(shared, 65534, 65534)
            #expect(throws: ConfigurationError.self) { try SessionFiles.prepare(shared) }
        }
    }

    /// A recording is created 0600 whatever the umask (never 0666 chmod-ed later), and a symbolic
    /// link planted where it is about to be written is replaced, never followed: the file the
    /// link pointed at keeps its bytes and its mode.
    @Test func aRecordingIsPrivateFromTheStartAndNeverFollowsALink() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let victim = temporary.file("victim")
        temporary.write("victim", Array("root's file".utf8))
        chmod(victim, 0o644)
        let path = temporary.file("session.jsonl")
        #expect(symlink(victim, path) == 0)
        let recording = SessionRecording(description: "test", entries: [])
        let old = umask(0)
        defer { umask(old) }
        try SessionRecording.write(recording, to: path)
        #expect(Files.status(victim)?.mode == 0o644)
        #expect(try Files.read(victim, limit: 100) == Array("root's file".utf8))
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_mode & 0o777 == 0o600)
        #expect(try SessionRecording.read(from: path).description == "test")
    }
}
