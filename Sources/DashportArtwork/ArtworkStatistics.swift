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
