import DashportDigest

/// The opaque name under which a cover is served: the first 32 hex digits of the SHA-256 of
/// its URI (for files, of the resolved path, size and modification time). A changed URI or
/// file is a new key, so no car keeps showing a stale cover.
public struct ArtworkKey: Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// Wraps a key as received from a car. Unknown keys are simply not served.
    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// The key of `material`: 32 lowercase hex digits (128 bits of SHA-256).
    static func digest(of material: String) -> ArtworkKey {
        ArtworkKey(rawValue: String(SHA256.hex(Array(material.utf8)).prefix(32)))
    }

    /// True for what ``digest(of:)`` produces: the only keys that may name files in the cache.
    var isWellFormed: Bool {
        rawValue.utf8.count == 32 && rawValue.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
