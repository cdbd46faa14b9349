// Sources/DashportTestSupport/MPDScanHold.swift - holds a real mpd's database update on one file, for as long as a test needs.

import DashportBenchSupport
import Foundation
import Glibc

/// Holds MPD's scan: a write lease (`fcntl F_SETLEASE`) on one new file of the library, so MPD's
/// update thread blocks in `open` of that file, with `updating_db` in its status, while MPD's
/// other commands answer as usual, until ``release()``. No sleep and no machine speed: the scan
/// runs exactly as long as the test holds it.
///
/// The kernel breaks a lease by itself after `/proc/sys/fs/lease-break-time` (45 s on Debian):
/// a test must release within that, and can tell with ``isHeld`` (MPD's `updating_db` says the
/// same). The lease holder is told of the break by a signal: SIGURG here (ignored by default),
/// not SIGIO (whose default ends the process).
public final class MPDScanHold: Sendable {
    /// The held file, relative to the music directory.
    public let file: String
    private let fd: Int32

    /// Writes a copy of `template` (a song of the library) as `file` in `music` and takes the lease.
    public init(music: String, copying template: String, as file: String) throws {
        self.file = file
        let path = music + "/" + file
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: music + "/" + template, toPath: path)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw MPDHarnessError("cannot open \(path): \(String(cString: strerror(errno)))") }
        // F_SETSIG (10) and F_SETLEASE (1024) are Linux's; Glibc's module leaves out _GNU_SOURCE's names.
        guard fcntl(fd, 10, SIGURG) == 0, fcntl(fd, 1024, Int32(F_WRLCK)) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw MPDHarnessError("cannot take a lease on \(path): \(reason)")
        }
        self.fd = fd
    }

    /// Whether the lease still holds MPD (not released, not broken by the kernel's timeout).
    /// F_GETLEASE (1025) says F_UNLCK once the lease is gone.
    public var isHeld: Bool { fcntl(fd, 1025) != Int32(F_UNLCK) }

    /// Lets MPD's scan go on.
    public func release() {
        _ = fcntl(fd, 1024, Int32(F_UNLCK))
    }

    deinit {
        close(fd)
    }
}

extension MPDLibrary {
    /// `count` more albums (`Album 0000`, …, one tiny tagged FLAC each, ``GeneratedLibrary``) in
    /// `music`, for lists longer than a page.
    public static func generateAlbums(music: String, count: Int, scratch: String) throws {
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        _ = try GeneratedLibrary.generate(into: music, albums: count, tracks: 1, scratch: scratch)
    }
}
