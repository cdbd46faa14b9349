#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX file operations the artwork cache needs, with errors as ``ArtworkError/io(_:)``.
/// Blocking; files are small (thumbnails) or read by libvips itself (originals).
enum DiskIO {
    struct FileInfo {
        var size: Int
        /// Modification time in nanoseconds since the epoch: the cache's last-use time.
        var modified: Int64
        var isRegularFile: Bool
        /// Which file this is (`st_dev`, `st_ino`): a path that now leads to another file differs.
        var device: UInt64
        var inode: UInt64
    }

    static func errnoText(_ what: String, _ path: String) -> ArtworkError {
        .io("\(what) \(path): \(String(cString: strerror(errno)))")
    }

    static func info(_ path: String) -> FileInfo? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        let modified = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        return FileInfo(
            size: Int(st.st_size), modified: modified, isRegularFile: (st.st_mode & S_IFMT) == S_IFREG,
            device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    /// Creates `path` and its parents (mode 0700: covers may be private).
    static func makeDirectory(_ path: String) throws(ArtworkError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o700) != 0 && errno != EEXIST { throw errnoText("cannot create", current) }
        }
    }

    /// Names in `directory`, without `.` and `..`.
    static func list(_ directory: String) throws(ArtworkError) -> [String] {
        guard let dir = opendir(directory) else { throw errnoText("cannot list", directory) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The whole file, refused if it is larger than `limit`.
    static func readFile(_ path: String, limit: Int) throws(ArtworkError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw errnoText("cannot open", path) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw errnoText("cannot stat", path) }
        let size = Int(st.st_size)
        guard size <= limit else { throw .tooLarge(bytes: size, limit: limit) }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, size - done) }  // baseAddress: size > 0 here
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw n == 0 ? .io("\(path) shrank while reading") : errnoText("cannot read", path) }
            done += n
        }
        return bytes
    }

    /// Writes `bytes` to `path` atomically: a temporary file beside it, fsync, rename, fsync of
    /// the directory. A crash leaves either the old file or the new one, never half of it.
    static func writeAtomically(_ bytes: [UInt8], to path: String, temporary: String) throws(ArtworkError) {
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw errnoText("cannot create", temporary) }
        var failure: ArtworkError?
        var done = 0
        while done < bytes.count && failure == nil {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }  // baseAddress: count > 0 here
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { failure = errnoText("cannot write", temporary) } else { done += n }
        }
        if failure == nil && fsync(fd) != 0 { failure = errnoText("cannot sync", temporary) }
        close(fd)
        if let failure {
            unlink(temporary)
            throw failure
        }
        try commit(temporary, to: path)
    }

    /// Makes a finished temporary file durable and moves it to `path` (fsync, rename, fsync dir).
    static func commit(_ temporary: String, to path: String) throws(ArtworkError) {
        let fd = open(temporary, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw errnoText("cannot open", temporary) }
        let synced = fsync(fd) == 0
        close(fd)
        guard synced else {
            unlink(temporary)
            throw errnoText("cannot sync", temporary)
        }
        guard rename(temporary, path) == 0 else {
            let error = errnoText("cannot rename to", path)
            unlink(temporary)
            throw error
        }
        syncDirectory(of: path)
    }

    /// Sets the modification time of `path` (the cache keeps its last-use order there).
    static func setModified(_ path: String, nanoseconds: Int64) {
        let time = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var times = (time, time)
        _ = withUnsafePointer(to: &times) { pair in
            pair.withMemoryRebound(to: timespec.self, capacity: 2) { utimensat(AT_FDCWD, path, $0, 0) }
        }
    }

    /// The wall clock in nanoseconds, at full resolution (file times are only as fine as a tick).
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    static func remove(_ path: String) {
        unlink(path)
    }

    private static func syncDirectory(of path: String) {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let fd = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
