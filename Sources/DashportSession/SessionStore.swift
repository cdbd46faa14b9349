import DashportFiles
public import FoundationEssentials

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

/// Why a write failed: `description` names the file, `cause` does not (it is what cars are told).
struct SessionStoreError: Error, CustomStringConvertible {
    var description: String
    var cause: String

    init(description: String, cause: String? = nil) {
        self.description = description
        self.cause = cause ?? description
    }
}

/// Where the session is persisted: one JSON file in a directory (created 0700 when missing),
/// replaced atomically on every write (``Files/writeAtomically(_:to:mode:)``: mode 0600).
///
/// Reading never throws: a missing file is `empty`; anything unreadable, truncated, oversized or
/// undecodable is `corrupt`; another format version is `unsupportedVersion`. The file is read
/// without blocking: a FIFO or other non-regular file in its place is `corrupt`, never a hang.
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
        let data: Data
        do {
            data = Data(try Files.read(fileURL.path, limit: maxFileBytes))
        } catch {
            if error.isMissing { return .empty }
            if case .tooLarge = error.cause { return .corrupt("the session file is more than \(maxFileBytes) bytes") }
            return .corrupt("the session file cannot be read: \(error)")
        }
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
            try Files.makeDirectory(directory.path)
            try Files.writeAtomically(data, to: fileURL.path, mode: 0o600)
        } catch {
            throw SessionStoreError(description: error.description, cause: error.causeText)
        }
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
