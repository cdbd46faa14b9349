import DashportClock
import DashportDigest
import DashportFiles
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Which artwork URIs may be served, under which opaque keys.
///
/// Only what the browse tree registered is ever fetched or read: no arbitrary URL, no arbitrary
/// file. `https://` URIs (and `http://` when allowed) are keyed by the SHA-256 of the URI.
/// `file://` URIs are resolved (symlinks, `..`) and must land on a regular file inside a root;
/// they are keyed by the SHA-256 of their content (path, size and modification time for a file
/// over 32 MiB), so an edited file gets a new key and a moved library keeps its keys. Holds at most `capacity`
/// registrations; the least recently registered goes first.
///
/// The browse tree registers every cover of every answer, so what a URI came to is remembered
/// (see ``Outcome``, at most `capacity` URIs): registering it again costs a lookup, and for a
/// file at most one `stat` per `recheckInterval`. Serving a file resolves and checks it again
/// regardless (``resolveFile(_:)``), so a symlink swapped in meanwhile is still refused.
struct ArtworkRegistry {
    enum Source: Hashable, Sendable {
        case remote(URL)
        /// The path as written in the URI; resolved and checked again on every read.
        case file(String)
    }

    struct Registration: Hashable, Sendable {
        var uri: String
        var source: Source
        /// The URI without query and user info, for logs and notifications.
        var displayURI: String
    }

    /// Work done by ``register(_:at:)``, for tests: what the memo is there to save.
    struct Counters: Hashable {
        /// Keys computed (one SHA-256 each).
        var keysComputed = 0
        /// Files resolved and checked against the roots (`realpath`, `stat`).
        var filesResolved = 0
        /// Remembered files checked again with one `stat`.
        var filesChecked = 0
    }

    /// URIs longer than this (in UTF-8 bytes) are not remembered: a `data:` URI could otherwise
    /// pin megabytes per entry. They are refused or registered as usual, only without the memo.
    static let maxRememberedURIBytes = 4096

    /// The roots, resolved. Roots that do not exist are left out (see ``missingRoots``).
    let roots: [String]
    let missingRoots: [String]
    let allowPlainHTTP: Bool
    let capacity: Int
    /// How long a remembered file (or its refusal) is trusted before it is checked again.
    let recheckInterval: Duration
    private var entries: BoundedLRU<ArtworkKey, Registration>
    private var memo: BoundedLRU<String, Memo>
    private(set) var counters = Counters()

    /// - Parameter recheckInterval: `.zero` checks a file on every registration.
    init(roots: [String], allowPlainHTTP: Bool, capacity: Int, recheckInterval: Duration) {
        var resolved: [String] = []
        var missing: [String] = []
        for root in roots {
            if let path = Self.realPath(root) { resolved.append(path) } else { missing.append(root) }
        }
        self.roots = resolved
        self.missingRoots = missing
        self.allowPlainHTTP = allowPlainHTTP
        self.capacity = max(1, capacity)
        self.recheckInterval = max(.zero, recheckInterval)
        self.entries = BoundedLRU(capacity: capacity)
        self.memo = BoundedLRU(capacity: capacity)
    }

    var count: Int { entries.count }
    /// URIs whose outcome is remembered.
    var rememberedCount: Int { memo.count }

    func registration(for key: ArtworkKey) -> Registration? { entries[key] }

    /// Registers `uri` (again) and returns its key, or why it cannot be served. `now` decides
    /// whether a remembered file is due for a check.
    mutating func register(_ uri: String, at now: ClockInstant) -> Result<ArtworkKey, ArtworkError> {
        if let known = memo.touchedValue(uri), stillHolds(known, of: uri, at: now) {
            return settle(known.outcome.value, evaluated: false)
        }
        let (outcome, checkedAt) = evaluate(uri, at: now)
        if uri.utf8.count <= Self.maxRememberedURIBytes {
            memo.set(Memo(outcome: SharedOutcome(outcome), checkedAt: checkedAt), for: uri)
        }
        return settle(outcome, evaluated: true)
    }

    /// Resolves `path` and checks that it is a regular file inside a root.
    func resolveFile(_ path: String) -> Result<(String, Files.Status), ArtworkError> {
        guard let resolved = Self.realPath(path) else {
            return .failure(.io("cannot resolve \(path): \(String(cString: strerror(errno)))"))
        }
        let inside = roots.contains { root in root == "/" || resolved == root || resolved.hasPrefix(root + "/") }
        guard inside else { return .failure(.outsideRoots(resolved)) }
        guard let info = Files.status(resolved), info.isRegularFile else { return .failure(.io("\(resolved) is not a regular file")) }
        return .success((resolved, info))
    }

    /// The whole work of a registration: parse, check the scheme, for a file resolve it, compute
    /// the key. Also when the outcome must be checked again: nil when it depends on the URI alone.
    private mutating func evaluate(_ uri: String, at now: ClockInstant) -> (Outcome, checkedAt: ClockInstant?) {
        guard let url = URL(string: uri), let scheme = url.scheme?.lowercased() else {
            return (.refused(.unsupportedScheme(String(uri.prefix { $0 != "?" }))), nil)
        }
        switch scheme {
        case "https", "http":
            guard scheme == "https" || allowPlainHTTP, let host = url.host, !host.isEmpty else {
                return (.refused(.unsupportedScheme(Self.redacted(url))), nil)
            }
            let registration = Registration(uri: uri, source: .remote(url), displayURI: Self.redacted(url))
            return (.accepted(key(of: uri), registration, file: nil), nil)
        case "file":
            guard (url.host ?? "").isEmpty || url.host == "localhost", url.path.hasPrefix("/") else {
                return (.refused(.unsupportedScheme(uri)), nil)
            }
            counters.filesResolved += 1
            switch resolveFile(url.path) {
            case .failure(let error):
                return (.refused(error), now)
            case .success(let (path, info)):
                let key = key(ofFile: path, info)
                let registration = Registration(uri: uri, source: .file(url.path), displayURI: uri)
                return (.accepted(key, registration, file: FileIdentity(info)), now)
            }
        default:
            return (.refused(.unsupportedScheme(Self.redacted(url))), nil)
        }
    }

    /// Largest file whose key is its content digest; a larger one (never a cover in practice) is
    /// keyed by path, size and modification time instead.
    static let maxDigestedFileBytes = 32 << 20

    /// A file's key is the SHA-256 of its bytes: an edited file gets a new key, and the same
    /// library keeps its keys wherever it is checked out or installed, so recorded sessions and a
    /// car's cached keys stay valid across machines (path and mtime differ from clone to clone).
    private mutating func key(ofFile path: String, _ info: Files.Status) -> ArtworkKey {
        if info.size <= Self.maxDigestedFileBytes, let bytes = try? Files.read(path, limit: Self.maxDigestedFileBytes) {
            return key(of: "file-content\u{0}" + SHA256.hex(bytes))
        }
        return key(of: "file\u{0}\(path)\u{0}\(info.size)\u{0}\(info.modified)")
    }

    private mutating func key(of material: String) -> ArtworkKey {
        counters.keysComputed += 1
        return .digest(of: material)
    }

    /// `realpath(3)`: absolute, with every symlink and `..` resolved; nil if it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// scheme://host[:port]/path: what may be logged of a URL (queries and user info may hold tokens).
    static func redacted(_ url: URL) -> String {
        var components = URLComponents()
        components.scheme = url.scheme
        components.host = url.host
        components.port = url.port
        components.path = url.path
        return components.string ?? "(unprintable URL)"
    }
}

extension ArtworkRegistry {
    /// What registering a URI came to.
    enum Outcome: Sendable {
        /// Accepted. `file` is the file the key was computed for; nil for https/http, whose key
        /// depends on the URI alone.
        case accepted(ArtworkKey, Registration, file: FileIdentity?)
        case refused(ArtworkError)
    }

    /// A file as `stat` saw it. A path that now leads to another file, or an edit, changes it.
    struct FileIdentity: Hashable, Sendable {
        var device: UInt64
        var inode: UInt64
        var size: Int
        var modified: Int64

        init(_ info: Files.Status) {
            (device, inode, size, modified) = (info.device, info.inode, info.size, info.modified)
        }
    }

    /// An outcome as the memo holds it: reading it on every registration of its URI costs one
    /// reference count, not one per string inside.
    final class SharedOutcome: Sendable {
        let value: Outcome
        init(_ value: Outcome) { self.value = value }
    }

    /// One remembered URI.
    struct Memo {
        let outcome: SharedOutcome
        /// When the file system was last asked (a file's outcome, accepted or refused); nil when
        /// the outcome depends on the URI alone and never needs a check.
        var checkedAt: ClockInstant?
    }

    /// Whether a remembered outcome still holds: one that depends on the URI alone always does;
    /// one about a file until ``recheckInterval`` is up, and then, for an accepted file, as long
    /// as one `stat` of its path finds the same file unchanged (the check starts a new interval).
    private mutating func stillHolds(_ known: Memo, of uri: String, at now: ClockInstant) -> Bool {
        guard let checkedAt = known.checkedAt, now >= checkedAt + recheckInterval else { return true }
        guard case .accepted(_, let registration, let file?) = known.outcome.value, case .file(let path) = registration.source else {
            return false  // a refusal is worked out again
        }
        counters.filesChecked += 1
        guard let info = Files.status(path), info.isRegularFile, FileIdentity(info) == file else { return false }
        memo.set(Memo(outcome: known.outcome, checkedAt: now), for: uri)
        return true
    }

    /// The result of an outcome; an accepted key becomes (again) the most recent registration.
    /// A key registered earlier keeps its registration; a fresh evaluation replaces it.
    private mutating func settle(_ outcome: Outcome, evaluated: Bool) -> Result<ArtworkKey, ArtworkError> {
        switch outcome {
        case .accepted(let key, let registration, _):
            if evaluated || !entries.touch(key) { entries.set(registration, for: key) }
            return .success(key)
        case .refused(let error):
            return .failure(error)
        }
    }
}
