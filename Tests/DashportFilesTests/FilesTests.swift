import DashportFiles
import DashportTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct AtomicWriteTests {
    @Test func aWriteReplacesTheFileWholeAndLeavesNoTemporaryFile() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let path = scratch.file("state.json")
        try Files.writeAtomically(Array("old".utf8), to: path)
        try Files.writeAtomically(Array("new contents".utf8), to: path)
        #expect(try Files.read(path, limit: 100) == Array("new contents".utf8))
        #expect(try Files.list(scratch.path) == ["state.json"])
        #expect(Files.status(path)?.mode == 0o600)
    }

    @Test func anEmptyFileIsWrittenAndRead() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        try Files.writeAtomically([], to: scratch.file("empty"))
        #expect(try Files.read(scratch.file("empty"), limit: 0) == [])
    }

    @Test func aWriteIntoAMissingDirectoryFailsNamingTheTemporaryFileAndLeavesNothing() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let error = try #require(throws: FileError.self) { try Files.writeAtomically([1], to: scratch.file("gone/file")) }
        #expect(error.operation == "create")
        #expect(error.isMissing)
        #expect(error.description.hasPrefix("cannot create \(scratch.file("gone/"))"))
        #expect(try Files.list(scratch.path).isEmpty)
    }

    @Test func aWriteOverADirectoryFailsAtTheRenameAndRemovesTheTemporaryFile() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        try Files.makeDirectory(scratch.file("taken"))
        try Files.writeAtomically([9], to: scratch.file("taken/inside"))
        let error = try #require(throws: FileError.self) { try Files.writeAtomically([1, 2], to: scratch.file("taken")) }
        #expect(error.operation == "rename into place")
        #expect(error.path == scratch.file("taken"))
        #expect(try Files.list(scratch.path) == ["taken"])
    }

    @Test func aStreamedFileIsCommittedUnderItsName() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let temporary = Files.temporaryPath(in: scratch.path)
        #expect(Files.isTemporary(String(temporary.split(separator: "/").last ?? "")))
        let fd = try Files.create(temporary, mode: 0o640)
        try [UInt8](repeating: 7, count: 70_000).withUnsafeBytes { try Files.writeAll($0, to: fd, path: temporary) }
        close(fd)
        #expect(throws: FileError.self) { _ = try Files.create(temporary) }  // never an existing file
        try Files.commit(temporary, to: scratch.file("download"))
        #expect(try Files.read(scratch.file("download"), limit: 1 << 20) == [UInt8](repeating: 7, count: 70_000))
        #expect(Files.status(scratch.file("download"))?.mode == 0o640)
        #expect(try Files.list(scratch.path) == ["download"])
        let missing = try #require(throws: FileError.self) { try Files.commit(temporary, to: scratch.file("again")) }
        #expect(missing.isMissing)
    }

    @Test func temporaryPathsAreHiddenFreshAndBesideTheirTarget() {
        let first = Files.temporaryPath(for: "/var/state/session.json")
        let second = Files.temporaryPath(for: "/var/state/session.json")
        #expect(first != second)
        #expect(first.hasPrefix("/var/state/.tmp-session.json-"))
        #expect(Files.temporaryPath(for: "bare").hasPrefix("./.tmp-bare-"))
        #expect(!Files.isTemporary("session.json"))
    }

    @Test func removingAMissingFileIsFine() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        try Files.remove(scratch.file("never-there"))
        try Files.makeDirectory(scratch.file("dir"))
        try Files.writeAtomically([1], to: scratch.file("dir/x"))
        let error = try #require(throws: FileError.self) { try Files.remove(scratch.file("dir")) }
        #expect(error.operation == "delete")
    }
}

@Suite struct StateFileReadTests {
    /// Issue 11 #5: a FIFO where a state file should be hung start-up forever; now it is refused.
    /// The read runs on a detached thread, so if blocking comes back the test fails, not hangs.
    @Test func aFIFOIsRefusedWithoutBlocking() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let fifo = try scratch.fifo("session.json")
        let outcome = try await finishesOnAThread(release: releaseFIFO(fifo)) {
            Result { () throws(FileError) in try Files.read(fifo, limit: 1 << 20) }
        }
        guard case .failure(let error) = outcome else {
            Issue.record("a FIFO was read as a file")
            return
        }
        #expect(error.cause == .notRegularFile(kind: "a FIFO"))
        #expect(error.description == "cannot read \(fifo): it is a FIFO, not a regular file")
    }

    @Test func aSymbolicLinkADirectoryAndADeviceAreRefusedByKind() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        try Files.writeAtomically([1], to: scratch.file("real"))
        #expect(symlink(scratch.file("real"), scratch.file("link")) == 0)
        try Files.makeDirectory(scratch.file("dir"))
        let cases = [
            (scratch.file("link"), "a symbolic link"), (scratch.file("dir"), "a directory"), ("/dev/null", "a character device"),
        ]
        for (path, kind) in cases {
            let error = try #require(throws: FileError.self) { try Files.read(path, limit: 10) }
            #expect(error.cause == .notRegularFile(kind: kind), "\(path)")
        }
    }

    @Test func aFileOverTheLimitIsRefusedAndAMissingOneSaysSo() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        try Files.writeAtomically([UInt8](repeating: 1, count: 11), to: scratch.file("big"))
        let error = try #require(throws: FileError.self) { try Files.read(scratch.file("big"), limit: 10) }
        #expect(error.cause == .tooLarge(bytes: 11, limit: 10))
        #expect(try Files.read(scratch.file("big"), limit: 11).count == 11)
        let missing = try #require(throws: FileError.self) { try Files.read(scratch.file("nothing"), limit: 10) }
        #expect(missing.isMissing)
        #expect(missing.description.contains("No such file or directory"))
        #expect(try Files.exists(scratch.file("big")))
        #expect(try !Files.exists(scratch.file("nothing")))
    }
}

@Suite struct DirectoryTests {
    @Test func onlyTheLastComponentIsCreatedAndAMissingParentIsNamed() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        #expect(try Files.makeDirectory(scratch.file("state")))
        #expect(try !Files.makeDirectory(scratch.file("state/")))  // already there: left as it is
        let error = try #require(throws: FileError.self) { try Files.makeDirectory(scratch.file("a/b/")) }
        #expect(error.cause == .missingParent(scratch.file("a")))
        #expect(error.description.contains("its parent directory \(scratch.file("a")) does not exist"))
        #expect(Files.status(scratch.file("a")) == nil)
        try Files.writeAtomically([1], to: scratch.file("file"))
        let notDirectory = try #require(throws: FileError.self) { try Files.makeDirectory(scratch.file("file")) }
        #expect(notDirectory.cause == .notADirectory)
    }

    /// The default state location's parents (the XDG state home on a fresh machine) are made,
    /// each 0700, outermost first; the directory itself is left to ``Files/makeDirectory(_:mode:)``.
    @Test func parentsOfADefaultLocationAreMadeWithExactModes() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        var made: [String] = []
        try Files.makeParents(of: scratch.file("home/.local/state/dashport")) { made.append($0) }
        #expect(made == [scratch.file("home"), scratch.file("home/.local"), scratch.file("home/.local/state")])
        #expect(Files.status(scratch.file("home/.local/state/dashport")) == nil)
        for path in made {
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o700, "\(path)")
        }
        made = []
        try Files.makeParents(of: scratch.file("home/.local/state/dashport")) { made.append($0) }
        #expect(made.isEmpty, "existing parents are left as they are")
        try Files.writeAtomically([1], to: scratch.file("plain"))
        #expect(throws: FileError.self) { try Files.makeParents(of: scratch.file("plain/state/dashport")) }
    }

    /// Issue 11 #8: directories followed the umask (0777 under umask 000). The umask is
    /// process-wide, so it is changed only inside this one test and put back before it returns;
    /// concurrent tests that create files meanwhile get at most laxer modes, and every state file
    /// and directory Dashport makes sets its mode explicitly anyway.
    @Test func modesAreExactWhateverTheUmask() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let saved = umask(0o000)
        defer { umask(saved) }
        try Files.makeDirectory(scratch.file("open-umask"))
        try Files.writeAtomically([1], to: scratch.file("open-umask/file"))
        umask(0o077)
        try Files.makeDirectory(scratch.file("covers"), mode: 0o755)
        try Files.writeAtomically([1], to: scratch.file("covers/cover.jpg"), mode: 0o644)
        umask(saved)
        #expect(Files.status(scratch.file("open-umask"))?.mode == 0o700)
        #expect(Files.status(scratch.file("open-umask/file"))?.mode == 0o600)
        #expect(Files.status(scratch.file("covers"))?.mode == 0o755)
        #expect(Files.status(scratch.file("covers/cover.jpg"))?.mode == 0o644)
    }
}

/// The write seam tests use to fail writes as a full or failing disk does, and the bookkeeping that
/// makes such a fault one log line.
@Suite struct WriteFaultTests {
    @Test(arguments: [ENOSPC, EIO, EFBIG])
    func anInjectedFaultFailsWritesUnderItsDirectoryOnly(code: Int32) throws {
        let scratch = try TemporaryDirectory()
        let other = try TemporaryDirectory()
        defer {
            Files.clearWriteFault(under: scratch.path)
            scratch.remove()
            other.remove()
        }
        let path = scratch.file("state.json")
        try Files.writeAtomically(Array("old".utf8), to: path)
        Files.injectWriteFault(code, under: scratch.path)
        let error = try #require(throws: FileError.self) { try Files.writeAtomically(Array("new contents".utf8), to: path) }
        #expect(error.cause == .system(errno: code))
        #expect(error.operation == "write")
        #expect(try Files.read(path, limit: 100) == Array("old".utf8), "the previous file is intact")
        #expect(try Files.list(scratch.path) == ["state.json"], "the temporary file is gone")
        try Files.writeAtomically([1], to: other.file("elsewhere"))  // another directory is not affected

        Files.clearWriteFault(under: scratch.path)
        try Files.writeAtomically(Array("new".utf8), to: path)
        #expect(try Files.read(path, limit: 100) == Array("new".utf8))
    }

    @Test func aFaultIsReportedWhenItStartsAndWhenItEnds() {
        var health = WriteHealth()
        let healthy = health.succeeded()
        let started = health.failed("disk full")
        let again = health.failed("disk full")
        let otherCause = health.failed("another cause")
        #expect(healthy == nil && started && !again && !otherCause)
        #expect(health.isFailing && health.cause == "disk full")
        let ended = health.succeeded()
        let stillHealthy = health.succeeded()
        #expect(ended == 3 && stillHealthy == nil && !health.isFailing)
        let restarted = health.failed("again")
        #expect(restarted, "a new fault is reported again")
    }
}
