// Sources/DashportBrowse/AtomicFile.swift - write a file so a crash leaves the old one or the new one.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed file system call, with the native errno kept.
struct FileSystemError: Error, Sendable, Hashable, CustomStringConvertible {
    var operation: String
    var path: String
    var errno: Int32

    var description: String {
        "\(operation) \(path): \(String(decoding: strerrorBytes, as: UTF8.self)) (errno \(errno))"
    }

    private var strerrorBytes: [UInt8] {
        guard let message = strerror(errno) else { return Array("unknown error".utf8) }
        return Array(UnsafeBufferPointer(start: message, count: strlen(message))).map { UInt8(bitPattern: $0) }
    }
}

/// Writes whole files atomically: a temporary file in the same directory, `fsync`, `rename` over
/// the target, then `fsync` of the directory so the rename itself is durable. A crash at any point
/// leaves either the old file or the new one, plus at worst a temporary file that
/// ``isTemporary(_:)`` recognises for cleanup.
enum AtomicFile {
    /// The prefix of temporary files (hidden, so listings of the real files skip them).
    static let temporaryPrefix = ".tmp-"

    static func isTemporary(_ name: String) -> Bool { name.hasPrefix(temporaryPrefix) }

    static func write(_ bytes: [UInt8], to directory: String, name: String) throws(FileSystemError) {
        let target = directory + "/" + name
        let temporary = directory + "/" + temporaryPrefix + name + "-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: temporary, errno: errno) }
        var descriptorOpen = true
        do throws(FileSystemError) {
            try writeAll(fd, bytes, path: temporary)
            guard fsync(fd) == 0 else { throw FileSystemError(operation: "fsync", path: temporary, errno: errno) }
            descriptorOpen = false  // close releases the descriptor even when it reports an error
            guard close(fd) == 0 else { throw FileSystemError(operation: "close", path: temporary, errno: errno) }
            guard rename(temporary, target) == 0 else {
                throw FileSystemError(operation: "rename", path: target, errno: errno)
            }
        } catch {
            if descriptorOpen { _ = close(fd) }
            _ = unlink(temporary)
            throw error
        }
        try syncDirectory(directory)
    }

    /// Deletes a file; a file that is already gone is fine.
    static func remove(_ path: String) throws(FileSystemError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw FileSystemError(operation: "unlink", path: path, errno: errno)
        }
    }

    /// Makes renames and deletions in `directory` durable.
    static func syncDirectory(_ directory: String) throws(FileSystemError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: directory, errno: errno) }
        defer { _ = close(fd) }
        guard fsync(fd) == 0 else { throw FileSystemError(operation: "fsync", path: directory, errno: errno) }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(FileSystemError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { buffer in
                #if canImport(Glibc)
                Glibc.write(fd, buffer.baseAddress, buffer.count)
                #else
                Darwin.write(fd, buffer.baseAddress, buffer.count)
                #endif
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw FileSystemError(operation: "write", path: path, errno: errno)
            }
            offset += written
        }
    }
}
