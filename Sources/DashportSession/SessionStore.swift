import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The session as written to disk: the three channels with the position projected to the write
/// time (`playbackState.position.valueMs`; its instant means nothing after a restart).
struct PersistedSession: Codable, Equatable {
    /// Bumped on any change a version-1 reader could misread; readers refuse other versions.
    static let currentVersion = 1

    var version: Int
    /// Wall-clock time of the write, milliseconds since 1970.
    var savedAtMs: Int64
    var snapshot: SessionSnapshot
}

/// Why a write failed.
struct SessionStoreError: Error, CustomStringConvertible {
    var description: String
}

/// Where the session is persisted: one JSON file in a directory, replaced atomically (temp file,
/// fsync, rename, fsync of the directory) on every write.
///
/// Reading never throws: a missing file is `empty`; anything unreadable, truncated, oversized or
/// undecodable is `corrupt`; another format version is `unsupportedVersion`.
public struct SessionStore: Sendable {
    /// Files larger than this are refused as corrupt without being read. Default 8 MiB (a 1000-item
    /// queue with long titles is well under 2 MiB).
    public static let defaultMaxFileBytes = 8 << 20

    public let directory: URL
    public let fileName: String
    public let maxFileBytes: Int

    public init(directory: URL, fileName: String = "session.json", maxFileBytes: Int = SessionStore.defaultMaxFileBytes) {
        self.directory = directory
        self.fileName = fileName
        self.maxFileBytes = maxFileBytes
    }

    /// The file the session is written to.
    public var fileURL: URL { directory.appendingPathComponent(fileName) }

    enum Loaded: Equatable {
        case empty
        case loaded(PersistedSession)
        case unsupportedVersion(Int)
        case corrupt(String)
    }

    private struct VersionProbe: Decodable {
        var version: Int
    }

    func load() -> Loaded {
        let path = fileURL.path
        guard FileManager.default.fileExists(atPath: path) else { return .empty }
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: fileURL)
            defer { try? handle.close() }
            data = try handle.read(upToCount: maxFileBytes + 1) ?? Data()
        } catch {
            return .corrupt("the session file cannot be read: \(error)")
        }
        guard data.count <= maxFileBytes else { return .corrupt("the session file is more than \(maxFileBytes) bytes") }
        let decoder = JSONDecoder()
        guard let probe = try? decoder.decode(VersionProbe.self, from: data) else {
            return .corrupt("the session file is not a versioned JSON session (\(data.count) bytes)")
        }
        guard probe.version == PersistedSession.currentVersion else { return .unsupportedVersion(probe.version) }
        do {
            return .loaded(try decoder.decode(PersistedSession.self, from: data))
        } catch {
            return .corrupt("the session file does not decode: \(Self.summary(of: error))")
        }
    }

    func save(_ session: PersistedSession) throws(SessionStoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(session)
        } catch {
            throw SessionStoreError(description: "encoding failed: \(error)")
        }
        guard data.count <= maxFileBytes else {
            throw SessionStoreError(description: "the session is \(data.count) bytes, more than \(maxFileBytes)")
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw SessionStoreError(description: "cannot create \(directory.path): \(error)")
        }
        try writeAtomically(data)
    }

    private func writeAtomically(_ data: Data) throws(SessionStoreError) {
        let target = fileURL.path
        let temporary = target + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.posixError("open \(temporary)") }
        var failure: SessionStoreError?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = write(fd, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = Self.posixError("write \(temporary)")
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = Self.posixError("fsync \(temporary)") }
        close(fd)
        if let failure {
            unlink(temporary)
            throw failure
        }
        guard rename(temporary, target) == 0 else {
            let error = Self.posixError("rename \(temporary)")
            unlink(temporary)
            throw error
        }
        // Make the rename itself durable; a failure here leaves a complete file, so it is not fatal.
        let directoryFd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFd >= 0 {
            _ = fsync(directoryFd)
            close(directoryFd)
        }
    }

    private static func posixError(_ operation: String) -> SessionStoreError {
        SessionStoreError(description: "\(operation): \(String(cString: strerror(errno)))")
    }

    private static func summary(of error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context),
            .valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
