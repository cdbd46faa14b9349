#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Files {
    /// What `stat` says about a path, in the terms Dashport uses.
    public struct Status: Sendable, Hashable {
        public var size: Int
        /// Modification time in nanoseconds since the epoch.
        public var modified: Int64
        public var isRegularFile: Bool
        public var isDirectory: Bool
        /// Permission bits (for example 0o600).
        public var mode: UInt32
        /// Which file this is (`st_dev`, `st_ino`): a path that now leads to another file differs.
        public var device: UInt64
        public var inode: UInt64
        /// The owner's user id (`st_uid`).
        public var owner: UInt32

        init(_ info: stat) {
            size = Int(info.st_size)
            modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            isRegularFile = info.st_mode & S_IFMT == S_IFREG
            isDirectory = info.st_mode & S_IFMT == S_IFDIR
            mode = UInt32(info.st_mode & 0o7777)
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            owner = UInt32(info.st_uid)
        }
    }

    /// `stat` of `path` (following links), or nil if it cannot be stat'ed.
    public static func status(_ path: String) -> Status? {
        var info = stat()
        return stat(path, &info) == 0 ? Status(info) : nil
    }

    /// Whether anything, a dangling symbolic link included, exists at `path`. Errors other than
    /// "does not exist" throw.
    public static func exists(_ path: String) throws(FileError) -> Bool {
        var info = stat()
        if lstat(path, &info) == 0 { return true }
        if errno == ENOENT { return false }
        throw .system("stat", path)
    }

    /// The whole of the regular file at `path`, refusing more than `limit` bytes.
    ///
    /// Opened with `O_NONBLOCK | O_NOFOLLOW` and checked with `fstat` before any read: a FIFO,
    /// socket, device, directory or symbolic link is refused (``FileError/Cause/notRegularFile(kind:)``)
    /// instead of blocking start-up forever or reading something that is not ours.
    /// `followingLinks` lets a configured input (a CA file in /etc/ssl/certs) be a symbolic link;
    /// what it leads to must still be a regular file. State files never set it.
    public static func read(_ path: String, limit: Int, followingLinks: Bool = false) throws(FileError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else {
            if errno == ELOOP { throw FileError("read", path, .notRegularFile(kind: "a symbolic link")) }
            throw .system("open", path)
        }
        defer { _ = close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .system("stat", path) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw FileError("read", path, .notRegularFile(kind: kind(info.st_mode))) }
        let size = Int(info.st_size)
        guard size <= limit else { throw FileError("read", path, .tooLarge(bytes: size, limit: limit)) }
        var bytes = [UInt8](repeating: 0, count: size + 1)  // one more: a file that grew is noticed
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                // baseAddress is non-nil: the buffer holds at least one byte.
                readSome(fd, buffer.baseAddress! + done, buffer.count - done)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .system("read", path)
            }
            if count == 0 { break }
            done += count
        }
        guard done == size else { throw FileError("read", path, .changedWhileReading) }
        bytes.removeLast()
        return bytes
    }

    /// Names in `directory`, without `.` and `..`, sorted.
    public static func list(_ directory: String) throws(FileError) -> [String] {
        guard let handle = opendir(directory) else { throw .system("list", directory) }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFDIR: "a directory"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }
}

/// `read(2)`, under a name the static ``Files/read(_:limit:)`` does not shadow.
private func readSome(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}
