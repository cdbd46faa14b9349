import DashportFiles
public import FoundationEssentials

/// The limits one download must keep.
public struct ArtworkFetchLimits: Sendable, Hashable {
    /// Largest body accepted; checked on Content-Length and on every chunk received, before it is
    /// written, so no more than this (plus one receive buffer) is ever taken in.
    public var maxBytes: Int
    /// Deadline from the first byte sent to the last byte received.
    public var timeout: Duration
    /// Redirects followed.
    public var maxRedirects: Int
    /// Whether `http://` (initial URL or redirect target) is accepted besides `https://`.
    public var allowPlainHTTP: Bool

    public init(maxBytes: Int, timeout: Duration, maxRedirects: Int, allowPlainHTTP: Bool) {
        self.maxBytes = maxBytes
        self.timeout = timeout
        self.maxRedirects = maxRedirects
        self.allowPlainHTTP = allowPlainHTTP
    }
}

/// Downloads an original. The default is ``CurlArtworkFetcher``; tests may inject another.
public protocol ArtworkFetcher: Sendable {
    /// Downloads `url` into a new file at `destination` and returns the number of bytes written.
    /// On failure the file may be left behind; the caller deletes it.
    func fetch(_ url: URL, into destination: String, limits: ArtworkFetchLimits) async throws(ArtworkError) -> Int
}
