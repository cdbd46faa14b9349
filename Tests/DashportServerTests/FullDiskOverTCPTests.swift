import DashportFiles
import DashportMessages
import DashportTestSupport
import Foundation
import Testing
import DashportLog

#if canImport(Glibc)
import Glibc
#endif

/// A full (or failing) disk under a running server (issue 11): the browse cache, the session store
/// and the artwork cache cannot write. Both cars keep being answered from memory, every file
/// written before the fault is byte-identical afterwards (no half-written or temporary file
/// either), each store logs the fault exactly once with its cause, and once the disk has room
/// again each store says so and writes again.
///
/// Three ways: through the write seam of `DashportFiles` (`ENOSPC`, `EIO`, `EFBIG` at the `write`
/// call, everywhere), and, when the tests may mount a tmpfs (root; CI), on a real full tmpfs and
/// on one remounted read-only (`EROFS`, refused when the temporary file is created).
@Suite struct FullDiskOverTCPTests {
    /// The three stores' once-per-fault lines, by what they say.
    static let faultLines = ["browse cache writes fail", "the session cannot be saved", "artwork cache writes fail"]
    static let recoveryLines = ["browse cache writes work again", "session written again", "artwork cache writes work again"]

    @Test(arguments: [ENOSPC, EIO, EFBIG])
    func aFailingDiskKeepsCarsAnsweredAndLeavesTheFiles(code: Int32) async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-full-\(UUID().uuidString)").path
        defer { Files.clearWriteFault(under: state) }
        try await scenario(
            stateDirectory: state, cause: String(cString: strerror(code)),
            breakDisk: { Files.injectWriteFault(code, under: state) },
            healDisk: { Files.clearWriteFault(under: state) })
    }

    @Test(
        .enabled(
            if: TmpfsMount.available,
            "needs root and a kernel that lets it mount a tmpfs (CI runs as root); the write-seam test above covers the same behaviour"))
    func aRealFullTmpfsKeepsCarsAnsweredAndLeavesTheFiles() async throws {
        let mount = try TmpfsMount(bytes: 2 << 20)
        defer { mount.remove() }
        let filler = mount.path + "/filler"
        try await scenario(
            stateDirectory: mount.path + "/state", cause: String(cString: strerror(ENOSPC)),
            breakDisk: { try TmpfsMount.fill(filler) },
            healDisk: { try Files.remove(filler) })
    }

    @Test(.enabled(if: TmpfsMount.available, "needs root and a kernel that lets it mount a tmpfs (CI runs as root)"))
    func aCacheDiskRemountedReadOnlyKeepsCarsAnsweredAndLeavesTheFiles() async throws {
        let mount = try TmpfsMount(bytes: 2 << 20)
        defer { mount.remove() }
        try await scenario(
            stateDirectory: mount.path + "/state", cause: String(cString: strerror(EROFS)),
            breakDisk: { try mount.remount(readOnly: true) },
            healDisk: { try mount.remount(readOnly: false) })
    }

    /// Everything but how the disk is broken and healed.
    func scenario(
        stateDirectory: String, cause: String, breakDisk: () throws -> Void, healDisk: () throws -> Void
    ) async throws {
        try await TestServer.with(stateDirectory: stateDirectory) { server in
            let first = try await FaultCars.linked(server)
            let second = try await FaultCars.linked(server)
            let root = try await FaultCars.rootId(first)
            let tabs = try await FaultCars.items(first, root)
            try #require(tabs.count == 4)
            let albumsTab = try #require(tabs.first { $0.id == "tab-albums" })
            let artistsTab = try #require(tabs.first { $0.id == "tab-artists" })
            let albums = try await FaultCars.items(first, albumsTab.id)
            try #require(albums.count >= 3)
            let tracks = try await FaultCars.items(first, albums[0].id)
            let track = try #require(tracks.first { $0.playable })
            #expect(try await FaultCars.play(first, track.id).accepted)
            #expect(try await FaultCars.command(first, .pause(DashportMedia.Empty())).accepted)
            let cover = try #require(albums[0].artworkKey)
            try expectImage(try await FaultCars.artwork(first, key: cover, size: 128))

            let session = stateDirectory + "/session"
            try await eventually("the session is written") { FileManager.default.fileExists(atPath: session + "/session.json") }
            let stores = [stateDirectory + "/browse-cache", session, stateDirectory + "/artwork-cache"]
            // The play's metadata carries the cover at the car's 256 px; its cache write runs after
            // the answer, so on a loaded machine it may still be a temporary file here: wait for
            // it to land, or the snapshot would hold a file that is renamed later.
            try await eventually("the now-playing cover's cache write") {
                let names = stores.flatMap { snapshot($0).keys }
                return names.allSatisfy { !$0.hasPrefix(".tmp-") } && names.contains { $0.hasSuffix("-256x256") }
            }
            let before = stores.map(snapshot)
            #expect(before.allSatisfy { !$0.isEmpty })
            #expect(Self.faultLines.allSatisfy { line in !server.log.records.contains { $0.message.contains(line) } })

            try breakDisk()

            // The second car browses lists nobody browsed yet (each a cache write) and asks for
            // covers at new sizes (each a thumbnail write); the first car plays and pauses (each
            // a session write). Every answer comes, complete.
            let artists = try await FaultCars.items(second, artistsTab.id)
            #expect(!artists.isEmpty)
            for album in albums[1...2] {
                let albumTracks = try await FaultCars.items(second, album.id)
                #expect(!albumTracks.isEmpty && albumTracks.allSatisfy { $0.playable })
            }
            for size: UInt32 in [96, 64] { try expectImage(try await FaultCars.artwork(second, key: cover, size: size)) }
            #expect(try await FaultCars.play(first, track.id).accepted)
            #expect(try await FaultCars.command(first, .pause(DashportMedia.Empty())).accepted)
            #expect(try await FaultCars.items(second, root).map(\.id) == tabs.map(\.id))
            #expect(try await FaultCars.items(first, artistsTab.id) == artists)  // from memory

            // Each store tried and failed: the session and the artwork cache write after their
            // answers (coalesced, off the request path), so on a loaded machine their lines may
            // come after the answers above; wait for them, then count.
            for line in Self.faultLines { try await server.waitForLog(line, timeout: .seconds(120)) }
            // Nothing on disk changed: the same files, byte for byte, and no temporary file left.
            #expect(stores.map(snapshot) == before)
            // One line per store, each naming the cause; no other line above debug names it (the
            // writes that failed again are debug lines).
            let notices = server.log.records.filter { $0.level > .debug }
            for line in Self.faultLines {
                let lines = notices.filter { $0.message.contains(line) }
                #expect(lines.count == 1, "\(line): \(lines.map(\.message))")
                #expect(lines.allSatisfy { $0.message.contains(cause) }, "\(lines.map(\.message))")
            }
            let naming = notices.filter { $0.message.contains(cause) }
            #expect(naming.count == Self.faultLines.count, "\(naming.map(\.message))")

            try healDisk()

            // Room again: the next write of each store works and says so; the nodes kept in memory
            // during the fault are written too.
            let moreArtists = try await FaultCars.items(second, artists[0].id)
            #expect(!moreArtists.isEmpty)
            try expectImage(try await FaultCars.artwork(second, key: cover, size: 80))
            #expect(try await FaultCars.play(first, track.id).accepted)
            for line in Self.recoveryLines {
                try await server.waitForLog(line, timeout: .seconds(120))
            }
            let cacheFiles = snapshot(stores[0]).keys.filter { !Files.isTemporary($0) }
            #expect(cacheFiles.count == before[0].count + 4, "three lists browsed during the fault, one after: \(cacheFiles.sorted())")
            #expect(snapshot(session) != before[1], "the session is saved again")
            await first.abort()
            await second.abort()
        }
    }

    func expectImage(_ result: DashportMedia.ArtworkResult, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard case .image(let image) = result.outcome, !image.data.isEmpty else {
            Issue.record("expected a cover, got \(String(describing: result.outcome))", sourceLocation: sourceLocation)
            return
        }
    }
}

/// A small tmpfs mounted for one test: a real filesystem that really fills up.
struct TmpfsMount {
    let path: String

    /// Whether this process may mount a tmpfs: root, and the kernel (or container) allows it. Found
    /// by mounting one, not assumed.
    static let available: Bool = {
        guard getuid() == 0, let probe = try? TmpfsMount(bytes: 64 << 10) else { return false }
        probe.remove()
        return true
    }()

    init(bytes: Int) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-tmpfs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        guard Glibc.mount("tmpfs", path, "tmpfs", 0, "size=\(bytes),mode=0700") == 0 else {
            let error = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: path)
            throw MountError(description: "cannot mount a tmpfs on \(path): \(error)")
        }
        self.path = path
    }

    /// Makes the filesystem read-only (as a kernel does after an I/O error) or writable again.
    func remount(readOnly: Bool) throws {
        let flags = UInt(MS_REMOUNT) | (readOnly ? UInt(MS_RDONLY) : 0)
        guard Glibc.mount("tmpfs", path, "tmpfs", flags, nil) == 0 else {
            throw MountError(description: "cannot remount \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Unmounts (lazily: a descriptor still open cannot keep it) and removes the mount point.
    func remove() {
        _ = umount2(path, Int32(MNT_DETACH))
        _ = rmdir(path)
    }

    /// Writes `path` until the filesystem has no room left (`ENOSPC`).
    static func fill(_ path: String) throws {
        let fd = try Files.create(path)
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0xA5, count: 4096)
        while true {
            let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written > 0 { continue }
            if written < 0 && errno == EINTR { continue }
            guard written < 0 && errno == ENOSPC else {
                throw MountError(description: "filling \(path): \(String(cString: strerror(errno)))")
            }
            return
        }
    }

    struct MountError: Error, CustomStringConvertible { var description: String }
}
