import DashportTLS
import Foundation

/// The few file operations an identity needs, on POSIX calls so every failure names its file and
/// errno. Writes are atomic (temporary file, fsync, rename, fsync of the directory): a crash leaves
/// either the old file or the new one, never half a key.
enum SecureFile {
    /// Identity files are a few KiB; anything larger is not ours.
    static let maximumSize = 64 * 1024

    /// Whether `path` exists (without following a final symlink). Other stat errors throw.
    static func exists(_ path: String) throws(TLSError) -> Bool {
        var info = stat()
        if lstat(path, &info) == 0 { return true }
        let code = errno
        if code == ENOENT { return false }
        throw .identity(file: path, reason: "cannot stat: \(message(code))")
    }

    /// Permission bits of `path` (for example 0o600).
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }

    /// Creates `path` and missing parents with mode 0700; an existing directory is left as it is.
    static func ensureDirectory(_ path: String) throws(TLSError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw .identity(file: path, reason: "exists but is not a directory") }
            return
        }
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .identity(file: path, reason: "cannot create directory: \(error.localizedDescription)")
        }
        guard chmod(path, 0o700) == 0 else { throw .identity(file: path, reason: "cannot chmod 0700: \(message(errno))") }
    }

    /// The whole file, refusing anything larger than ``maximumSize``.
    static func read(_ path: String) throws(TLSError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .identity(file: path, reason: "cannot open: \(message(errno))") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw .identity(file: path, reason: "cannot read: \(message(errno))")
            }
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= maximumSize else {
                throw .identity(file: path, reason: "larger than \(maximumSize) bytes, not an identity file")
            }
        }
    }

    /// Replaces `path` atomically with `bytes`, created with permission bits `mode`.
    static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t) throws(TLSError) {
        let temporary = "\(path).tmp-\(getpid())"
        unlink(temporary)  // a leftover from a crashed run of this very process id
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .identity(file: path, reason: "cannot create \(temporary): \(message(errno))") }
        var failure: String?
        if fchmod(fd, mode) != 0 { failure = "cannot chmod: \(message(errno))" }
        var offset = 0
        while failure == nil, offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                raw.baseAddress.map { Foundation.write(fd, $0 + offset, raw.count - offset) } ?? 0
            }
            if written < 0, errno != EINTR { failure = "cannot write: \(message(errno))" }
            if written > 0 { offset += written }
        }
        if failure == nil, fsync(fd) != 0 { failure = "cannot fsync: \(message(errno))" }
        if close(fd) != 0, failure == nil { failure = "cannot close: \(message(errno))" }
        if failure == nil, rename(temporary, path) != 0 { failure = "cannot rename into place: \(message(errno))" }
        if let failure {
            unlink(temporary)
            throw .identity(file: path, reason: failure)
        }
        syncDirectory(of: path)
    }

    /// Makes the rename durable. Best effort: some file systems refuse fsync on directories.
    private static func syncDirectory(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    private static func message(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
