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
        ArtworkKey(rawValue: String(SHA256.hex(of: Array(material.utf8)).prefix(32)))
    }

    /// True for what ``digest(of:)`` produces: the only keys that may name files in the cache.
    var isWellFormed: Bool {
        rawValue.utf8.count == 32 && rawValue.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

/// A cover ready to send: encoded bytes and what they are.
public struct ArtworkImage: Sendable, Hashable {
    /// JPEG or PNG data.
    public var bytes: [UInt8]
    /// ``jpeg``, or ``png`` when the image has alpha.
    public var mimeType: String
    /// The actual size: fits the requested box, keeps the aspect, never larger than the original.
    public var width: Int
    public var height: Int

    public init(bytes: [UInt8], mimeType: String, width: Int, height: Int) {
        self.bytes = bytes
        self.mimeType = mimeType
        self.width = width
        self.height = height
    }

    public static let jpeg = "image/jpeg"
    public static let png = "image/png"
}

/// What the artwork endpoint tells the rest of the server, on ``ArtworkService/notifications()``.
public enum ArtworkNotification: Sendable, Hashable {
    /// `artworkFailed`, severity degraded: a URI could not be served. Sent once per URI until it
    /// works again. The URI comes without its query and user info (they may hold tokens).
    case failed(key: ArtworkKey, uri: String, reason: ArtworkError)

    /// How bad it is for the session: a missing cover never stops playback.
    public enum Severity: String, Sendable, Hashable { case degraded }

    /// The session error code: `artworkFailed`.
    public var code: String {
        switch self { case .failed: "artworkFailed" }
    }

    public var severity: Severity {
        switch self { case .failed: .degraded }
    }
}

/// Counters since the service started: for logs, benchmarks and tests.
public struct ArtworkStatistics: Sendable, Hashable {
    /// Originals fetched from the network (backoff refusals and cache hits not counted).
    public var downloads = 0
    /// Decodes run by libvips (thumbnails made, or attempted and failed).
    public var resizes = 0
    /// Requests answered from the disk cache without decoding.
    public var cacheHits = 0
    /// Requests answered with an error.
    public var failures = 0

    public init() {}
}
