/// Limits and places of the artwork endpoint. Every size and time is capped, with these defaults.
public struct ArtworkConfiguration: Sendable {
    /// Directories whose files `file://` artwork may name (after symlinks and `..` are resolved).
    /// The server passes the catalog's folder. A root that does not exist is ignored.
    public var roots: [String]
    /// Where originals and thumbnails are kept across restarts. Created if missing.
    public var cacheDirectory: String
    /// Total bytes of originals and thumbnails on disk; least recently used out first.
    public var maxCacheBytes = 64 << 20
    /// Largest original accepted (download or local file): 20 MB.
    public var maxDownloadBytes = 20_000_000
    /// Deadline of one download, connection to last byte.
    public var downloadTimeout: Duration = .seconds(10)
    /// Redirects followed per download.
    public var maxRedirects = 3
    /// Images whose header announces more pixels are refused before decoding: 50 megapixels.
    public var maxPixels = 50_000_000
    /// JPEG quality of thumbnails, 1...100.
    public var jpegQuality = 85
    /// Box used when a request leaves width or height at 0 (what AAOS asks for: 256 px).
    public var defaultSize = 256
    /// Largest box side a request may ask for.
    public var maxSize = 2048
    /// Distinct sizes made of one cover. A car asking for yet another is answered with the
    /// nearest size already made (the smallest that covers the box, else the largest), so a peer
    /// cycling through hundreds of sizes costs at most this many decodes and cache files per cover.
    public var maxSizesPerCover = 8
    /// Decodes running at once. libvips is threaded itself; more would only compete for memory.
    public var maxConcurrentDecodes = 2
    /// Outer deadline of one request (waiting for a shared download, decoding): never a hang.
    public var requestTimeout: Duration = .seconds(30)
    /// First wait before a failed URI is tried again; doubles per failure up to ``maxRetryBackoff``.
    public var retryBackoff: Duration = .seconds(5)
    public var maxRetryBackoff: Duration = .seconds(600)
    /// Whether plain `http://` artwork is fetched. Off by default (covers come over https);
    /// tests turn it on for their loopback server, and a LAN music server may need it.
    public var allowPlainHTTP = false
    /// Registered URIs kept; beyond that the least recently registered is forgotten.
    public var maxRegisteredKeys = 10_000
    /// How long a registered (or refused) `file://` URI is trusted before registering it again
    /// checks the file with one `stat`: an edited file gets its new key, and a file that appeared
    /// is accepted, at most this late. `.zero` checks on every registration. Serving a file always
    /// resolves and checks it again, whatever this says.
    public var fileRecheckInterval: Duration = .milliseconds(1000)

    public init(roots: [String], cacheDirectory: String) {
        self.roots = roots
        self.cacheDirectory = cacheDirectory
    }

    /// The download limits this configuration implies.
    var fetchLimits: ArtworkFetchLimits {
        ArtworkFetchLimits(
            maxBytes: maxDownloadBytes,
            timeout: downloadTimeout,
            maxRedirects: maxRedirects,
            allowPlainHTTP: allowPlainHTTP
        )
    }
}
