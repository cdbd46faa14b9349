#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a file operation failed: what was attempted, on which path, and the cause.
///
/// Every routine of ``Files`` throws this one type, so every caller reports a file problem the same
/// way (`cannot <operation> <path>: <cause>`) and can still tell a missing file from a broken one.
public struct FileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Cause: Sendable, Hashable {
        /// A system call failed with this `errno`.
        case system(errno: Int32)
        /// The path names something other than a regular file (a FIFO, a device, a directory, a
        /// socket or a symbolic link); `kind` says which.
        case notRegularFile(kind: String)
        /// The path exists but is not a directory.
        case notADirectory
        /// The directory's parent does not exist; only the last component is ever created.
        case missingParent(String)
        /// The file is larger than the caller accepts.
        case tooLarge(bytes: Int, limit: Int)
        /// The file changed size while it was read.
        case changedWhileReading
        /// Another user could change (or read) what lives here: `problem` says who and how,
        /// `fix` is the command that makes it private.
        case notPrivate(problem: String, fix: String)
    }

    /// The attempted operation as a verb (`open`, `write`, `rename`, `create directory`, …).
    public var operation: String
    public var path: String
    public var cause: Cause

    public init(_ operation: String, _ path: String, _ cause: Cause) {
        self.operation = operation
        self.path = path
        self.cause = cause
    }

    /// A failed system call: `errno` as it is now.
    static func system(_ operation: String, _ path: String) -> FileError {
        FileError(operation, path, .system(errno: errno))
    }

    /// True when the file (or a directory on its path) does not exist.
    public var isMissing: Bool { cause == .system(errno: ENOENT) }

    public var description: String { "cannot \(operation) \(path): \(causeText)" }

    /// The cause alone, for callers that name the file themselves.
    public var causeText: String {
        switch cause {
        case .system(let code): String(cString: strerror(code))
        case .notRegularFile(let kind): "it is \(kind), not a regular file"
        case .notADirectory: "it exists but is not a directory"
        case .missingParent(let parent): "its parent directory \(parent) does not exist (only the last component is created)"
        case .tooLarge(let bytes, let limit): "it is \(bytes) bytes, more than the \(limit) accepted"
        case .changedWhileReading: "it changed size while being read"
        case .notPrivate(let problem, let fix): "\(problem); \(fix)"
        }
    }
}
