#if canImport(Glibc)
public import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Dashport's one way to touch its state on disk: the server key and certificate, the session,
/// the browse and artwork caches, and the emulator's saved covers all go through here.
///
/// - **Writes are atomic**: a temporary file in the target's directory (named by
///   ``temporaryPath(for:)``, recognised by ``isTemporary(_:)`` for clean-up after a crash), every
///   byte written, `fsync`, `rename` over the target, `fsync` of the directory. A crash leaves the
///   old file or the new one, never half of one. The file gets exactly the mode asked for, whatever
///   the umask. Any failure, the directory's `fsync` included, throws and removes the temporary file.
/// - **Reads never block and never follow a link**: the file is opened with `O_NONBLOCK` and
///   `O_NOFOLLOW`, then `fstat`ed; a FIFO, device, socket, directory or symbolic link is refused
///   with a ``FileError`` saying what it is, so a FIFO where `session.json` should be cannot hang
///   the server. Reads are capped.
/// - **Directories are created one level at a time, mode 0700 by default**, set explicitly after
///   `mkdir` so the umask does not matter; a missing parent is an error, never created silently.
public enum Files {
    /// The prefix of temporary files: hidden, so listings of real files skip them.
    public static let temporaryPrefix = ".tmp-"

    /// Whether a directory entry named `name` is a temporary file left by an interrupted write.
    public static func isTemporary(_ name: String) -> Bool { name.hasPrefix(temporaryPrefix) }

    /// A fresh temporary path next to `path` (same directory, so the final rename is atomic).
    public static func temporaryPath(for path: String) -> String {
        let (directory, name) = split(path)
        return join(directory, temporaryPrefix + name + "-" + randomSuffix())
    }

    /// A fresh temporary path in `directory`, for a file whose final name is not known yet.
    public static func temporaryPath(in directory: String) -> String {
        join(directory, temporaryPrefix + randomSuffix())
    }

    /// Replaces `path` atomically with `bytes`; the file gets permission bits `mode`.
    public static func writeAtomically(_ bytes: some Collection<UInt8>, to path: String, mode: mode_t = 0o600) throws(FileError) {
        let temporary = temporaryPath(for: path)
        let fd = try create(temporary, mode: mode)
        do throws(FileError) {
            let written = Array(bytes).withUnsafeBytes { buffer in
                Result { () throws(FileError) in try writeAll(buffer, to: fd, path: temporary) }
            }
            if case .failure(let error) = written {
                _ = close(fd)
                throw error
            }
            try syncAndClose(fd, path: temporary)
        } catch {
            _ = unlink(temporary)
            throw error
        }
        try publish(temporary, as: path)
    }

    /// Moves a complete file written at `temporary` (for example a download streamed through
    /// ``create(_:mode:)`` and ``writeAll(_:to:path:)``) to `path`: `fsync`, `rename`, `fsync` of
    /// the directory. On failure the temporary file is removed.
    public static func commit(_ temporary: String, to path: String) throws(FileError) {
        let fd = open(temporary, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let error = FileError.system("open", temporary)
            _ = unlink(temporary)
            throw error
        }
        do throws(FileError) {
            try syncAndClose(fd, path: temporary)
        } catch {
            _ = unlink(temporary)
            throw error
        }
        try publish(temporary, as: path)
    }

    /// Creates a new file (never an existing one) with exactly `mode`, open for writing; the
    /// caller writes with ``writeAll(_:to:path:)`` and closes it.
    public static func create(_ path: String, mode: mode_t = 0o600) throws(FileError) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .system("create", path) }
        guard fchmod(fd, mode) == 0 else {
            let error = FileError.system("set the mode of", path)
            _ = close(fd)
            _ = unlink(path)
            throw error
        }
        return fd
    }

    /// Writes every byte of `buffer` to `fd`, retrying short writes and `EINTR`. `path` names the
    /// file in the error (and is where a test's injected fault applies, see
    /// ``injectWriteFault(_:under:)``).
    public static func writeAll(_ buffer: UnsafeRawBufferPointer, to fd: Int32, path: String) throws(FileError) {
        guard let base = buffer.baseAddress else { return }
        var end = buffer.count
        let fault = injectedFault(for: path)
        if fault != nil { end /= 2 }  // a full disk takes part of a write, then refuses the rest
        var offset = 0
        while offset < end {
            let written = write(fd, base + offset, end - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw .system("write", path)
            }
            offset += written
        }
        if let fault { throw FileError("write", path, .system(errno: fault)) }
    }

    /// Makes renames and deletions in `directory` durable.
    public static func syncDirectory(_ directory: String) throws(FileError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .system("open directory", directory) }
        defer { _ = close(fd) }
        guard fsync(fd) == 0 else { throw .system("fsync directory", directory) }
    }

    /// Deletes a file; one that is already gone is fine.
    public static func remove(_ path: String) throws(FileError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw .system("delete", path) }
    }

    /// `fsync`, then `close` whatever happened: close releases the descriptor even when it
    /// reports an error, so the descriptor is gone when this returns or throws.
    private static func syncAndClose(_ fd: Int32, path: String) throws(FileError) {
        let synced = fsync(fd) == 0
        let syncError = errno
        let closed = close(fd) == 0
        guard synced else { throw FileError("fsync", path, .system(errno: syncError)) }
        guard closed else { throw .system("close", path) }
    }

    private static func publish(_ temporary: String, as path: String) throws(FileError) {
        guard rename(temporary, path) == 0 else {
            let error = FileError.system("rename into place", path)
            _ = unlink(temporary)
            throw error
        }
        try syncDirectory(split(path).directory)
    }

    private static func randomSuffix() -> String {
        String(UInt64.random(in: .min ... .max), radix: 36)
    }

    /// `path`'s directory (`.` for a bare name, `/` at the root) and last component.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    /// `directory/name`, without doubling a trailing slash.
    public static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
