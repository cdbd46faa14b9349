import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Which artwork URIs may be served, under which opaque keys.
///
/// Only what the browse tree registered is ever fetched or read: no arbitrary URL, no arbitrary
/// file. `https://` URIs (and `http://` when allowed) are keyed by the SHA-256 of the URI.
/// `file://` URIs are resolved (symlinks, `..`) and must land on a regular file inside a root;
/// they are keyed by the resolved path, size and modification time, so an edited file gets a new
/// key. Holds at most `capacity` registrations; the least recently registered goes first.
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
    private var outcomes: BoundedLRU<String, Outcome>
    private(set) var counters = Counters()

    /// - Parameter recheckInterval: `.zero` checks a file on every registration.
    init(roots: [String], allowPlainHTTP: Bool, capacity: Int, recheckInterval: Duration) {
        var resolved: [String] = [], missing: [String] = []
        for root in roots {
            if let path = Self.realPath(root) { resolved.append(path) } else { missing.append(root) }
        }
        self.roots = resolved
        self.missingRoots = missing
        self.allowPlainHTTP = allowPlainHTTP
        self.capacity = max(1, capacity)
        self.recheckInterval = max(.zero, recheckInterval)
        self.entries = BoundedLRU(capacity: capacity)
        self.outcomes = BoundedLRU(capacity: capacity)
    }

    var count: Int { entries.count }
    /// URIs whose outcome is remembered.
    var rememberedCount: Int { outcomes.count }

    func registration(for key: ArtworkKey) -> Registration? { entries[key] }

    /// Registers `uri` (again) and returns its key, or why it cannot be served. `now` decides
    /// whether a remembered file is due for a check.
    mutating func register(_ uri: String, at now: ContinuousClock.Instant) -> Result<ArtworkKey, ArtworkError> {
        if let known = outcomes[uri], let result = reuse(known, of: uri, at: now) { return result }
        let outcome = evaluate(uri, at: now)
        if uri.utf8.count <= Self.maxRememberedURIBytes { outcomes.set(outcome, for: uri) }
        return settle(outcome)
    }

    /// Resolves `path` and checks that it is a regular file inside a root.
    func resolveFile(_ path: String) -> Result<(String, DiskIO.FileInfo), ArtworkError> {
        guard let resolved = Self.realPath(path) else {
            return .failure(.io("cannot resolve \(path): \(String(cString: strerror(errno)))"))
        }
        let inside = roots.contains { root in root == "/" || resolved == root || resolved.hasPrefix(root + "/") }
        guard inside else { return .failure(.outsideRoots(resolved)) }
        guard let info = DiskIO.info(resolved), info.isRegularFile else { return .failure(.io("\(resolved) is not a regular file")) }
        return .success((resolved, info))
    }

    /// The whole work of a registration: parse, check the scheme, for a file resolve it, compute the key.
    private mutating func evaluate(_ uri: String, at now: ContinuousClock.Instant) -> Outcome {
        guard let url = URL(string: uri), let scheme = url.scheme?.lowercased() else {
            return .refused(.unsupportedScheme(String(uri.prefix { $0 != "?" })), until: nil)
        }
        switch scheme {
        case "https", "http":
            guard scheme == "https" || allowPlainHTTP, let host = url.host, !host.isEmpty else {
                return .refused(.unsupportedScheme(Self.redacted(url)), until: nil)
            }
            let registration = Registration(uri: uri, source: .remote(url), displayURI: Self.redacted(url))
            return .remote(key(of: uri), registration)
        case "file":
            guard (url.host ?? "").isEmpty || url.host == "localhost", url.path.hasPrefix("/") else {
                return .refused(.unsupportedScheme(uri), until: nil)
            }
            counters.filesResolved += 1
            switch resolveFile(url.path) {
            case .failure(let error):
                return .refused(error, until: now + recheckInterval)
            case .success(let (path, info)):
                let key = key(of: "file\u{0}\(path)\u{0}\(info.size)\u{0}\(info.modified)")
                let registration = Registration(uri: uri, source: .file(url.path), displayURI: uri)
                return .file(key, registration, FileState(path: url.path, info: info, checkedAt: now))
            }
        default:
            return .refused(.unsupportedScheme(Self.redacted(url)), until: nil)
        }
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
    /// What registering a URI came to, remembered per URI.
    enum Outcome {
        /// Accepted. An https/http key depends on the URI alone, so it never needs a check.
        case remote(ArtworkKey, Registration)
        /// Accepted, and valid while the path still leads to the same file, unchanged.
        case file(ArtworkKey, Registration, FileState)
        /// Refused until `until`; nil when the refusal depends on the URI alone (its scheme or host).
        case refused(ArtworkError, until: ContinuousClock.Instant?)
    }

    /// Which file a `file://` URI led to when it was last checked.
    struct FileState {
        /// The path as written in the URI.
        var path: String
        var device: UInt64
        var inode: UInt64
        var size: Int
        var modified: Int64
        var checkedAt: ContinuousClock.Instant

        init(path: String, info: DiskIO.FileInfo, checkedAt: ContinuousClock.Instant) {
            self.path = path
            self.device = info.device
            self.inode = info.inode
            self.size = info.size
            self.modified = info.modified
            self.checkedAt = checkedAt
        }

        /// Whether `info` (a `stat` of ``path``) is still the file the key was computed for.
        func isSameFile(as info: DiskIO.FileInfo) -> Bool {
            info.isRegularFile && info.device == device && info.inode == inode && info.size == size && info.modified == modified
        }
    }

    /// The remembered outcome if it still holds (refreshing its place in both LRUs), or nil when
    /// the URI must be evaluated again: a refusal that expired, or a file that changed.
    private mutating func reuse(_ outcome: Outcome, of uri: String, at now: ContinuousClock.Instant) -> Result<ArtworkKey, ArtworkError>? {
        var outcome = outcome
        switch outcome {
        case .remote:
            break
        case .refused(_, let until):
            if let until, now >= until { return nil }
        case .file(let key, let registration, var state):
            if now >= state.checkedAt + recheckInterval {
                counters.filesChecked += 1
                guard let info = DiskIO.info(state.path), state.isSameFile(as: info) else { return nil }
                state.checkedAt = now
                outcome = .file(key, registration, state)
            }
        }
        outcomes.set(outcome, for: uri)
        return settle(outcome)
    }

    /// Registers an accepted outcome's key (again, as the most recent) and returns the result.
    private mutating func settle(_ outcome: Outcome) -> Result<ArtworkKey, ArtworkError> {
        switch outcome {
        case .remote(let key, let registration), .file(let key, let registration, _):
            entries.set(registration, for: key)
            return .success(key)
        case .refused(let error, _):
            return .failure(error)
        }
    }
}
