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

    /// The roots, resolved. Roots that do not exist are left out (see ``missingRoots``).
    let roots: [String]
    let missingRoots: [String]
    let allowPlainHTTP: Bool
    let capacity: Int
    private var entries: [ArtworkKey: (registration: Registration, generation: UInt64)] = [:]
    /// Registration order; items whose generation no longer matches `entries` are stale.
    private var order: [(key: ArtworkKey, generation: UInt64)] = []
    private var orderStart = 0
    private var generation: UInt64 = 0

    init(roots: [String], allowPlainHTTP: Bool, capacity: Int) {
        var resolved: [String] = [], missing: [String] = []
        for root in roots {
            if let path = Self.realPath(root) { resolved.append(path) } else { missing.append(root) }
        }
        self.roots = resolved
        self.missingRoots = missing
        self.allowPlainHTTP = allowPlainHTTP
        self.capacity = max(1, capacity)
    }

    var count: Int { entries.count }

    func registration(for key: ArtworkKey) -> Registration? { entries[key]?.registration }

    /// Registers `uri` (again) and returns its key, or why it cannot be served.
    mutating func register(_ uri: String) -> Result<ArtworkKey, ArtworkError> {
        guard let url = URL(string: uri), let scheme = url.scheme?.lowercased() else {
            return .failure(.unsupportedScheme(String(uri.prefix { $0 != "?" })))
        }
        let key: ArtworkKey, registration: Registration
        switch scheme {
        case "https", "http":
            guard scheme == "https" || allowPlainHTTP, let host = url.host, !host.isEmpty else {
                return .failure(.unsupportedScheme(Self.redacted(url)))
            }
            key = .digest(of: uri)
            registration = Registration(uri: uri, source: .remote(url), displayURI: Self.redacted(url))
        case "file":
            guard (url.host ?? "").isEmpty || url.host == "localhost", url.path.hasPrefix("/") else {
                return .failure(.unsupportedScheme(uri))
            }
            switch resolveFile(url.path) {
            case .failure(let error): return .failure(error)
            case .success(let (path, info)):
                key = .digest(of: "file\u{0}\(path)\u{0}\(info.size)\u{0}\(info.modified)")
                registration = Registration(uri: uri, source: .file(url.path), displayURI: uri)
            }
        default:
            return .failure(.unsupportedScheme(Self.redacted(url)))
        }
        insert(key, registration)
        return .success(key)
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

    private mutating func insert(_ key: ArtworkKey, _ registration: Registration) {
        generation += 1
        entries[key] = (registration, generation)
        order.append((key, generation))
        while entries.count > capacity, orderStart < order.count {
            let oldest = order[orderStart]
            orderStart += 1
            if entries[oldest.key]?.generation == oldest.generation { entries[oldest.key] = nil }
        }
        if order.count - orderStart > 2 * capacity || orderStart > capacity {
            order = order[orderStart...].filter { entries[$0.key]?.generation == $0.generation }
            orderStart = 0
        }
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
