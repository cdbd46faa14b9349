/// Why a cover could not be registered or served. Every case is answered at once, never a hang;
/// failures of a URI (download, decode) also put that URI into backoff (see ``ArtworkService``).
public enum ArtworkError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The key was never handed out by ``ArtworkService/register(_:)`` (or was dropped since).
    case notRegistered(ArtworkKey)
    /// A `file://` URI that resolves (symlinks and `..` followed) outside every configured root.
    case outsideRoots(String)
    /// Neither `https://` (nor `http://` when allowed) nor `file://`, or a redirect to such a URL.
    case unsupportedScheme(String)
    /// A requested box outside `1...maxSize` on either side.
    case invalidSize(width: Int, height: Int)
    /// The original is bigger than the download cap (by Content-Length, or counted while reading).
    case tooLarge(bytes: Int, limit: Int)
    /// The image header announces more pixels than the cap: refused before decoding (a bomb).
    case tooManyPixels(pixels: Int, limit: Int)
    /// The server answered with a non-2xx status (a 404 page is a failure, not an image).
    case httpStatus(Int)
    /// More redirects than allowed.
    case tooManyRedirects(limit: Int)
    /// The download, or the whole request, took longer than its deadline.
    case timeout
    /// libvips could not read the data (corrupt, truncated, or not JPEG, PNG or WebP); its text.
    case decodeFailed(String)
    /// A file or network error other than the above; the system's text.
    case io(String)
    /// The artwork cache cannot be written (a full or failing disk: `ENOSPC`, `EIO`, `EFBIG`), so
    /// a download has nowhere to go; the system's text, without the path (cars are told it; the
    /// cache's log line names the directory). Not the URI's fault: no backoff, and the fault is
    /// logged once for the cache, not per cover.
    case storage(String)
    /// The URI failed recently and is not tried again before this much time has passed.
    case backingOff(retryAfter: Duration)

    public var description: String {
        switch self {
        case .notRegistered(let key): "artwork key \(key) is not registered"
        case .outsideRoots(let path): "\(path) is outside the artwork roots"
        case .unsupportedScheme(let uri): "unsupported artwork URI: \(uri)"
        case .invalidSize(let width, let height): "invalid artwork size \(width)x\(height)"
        case .tooLarge(let bytes, let limit): "artwork too large: \(bytes) bytes (limit \(limit))"
        case .tooManyPixels(let pixels, let limit): "artwork has too many pixels: \(pixels) (limit \(limit))"
        case .httpStatus(let status): "artwork download failed with HTTP status \(status)"
        case .tooManyRedirects(let limit): "artwork download redirected more than \(limit) times"
        case .timeout: "artwork request timed out"
        case .decodeFailed(let text): "artwork could not be decoded: \(text)"
        case .io(let text): "artwork I/O error: \(text)"
        case .storage(let text): "artwork cache cannot be written: \(text)"
        case .backingOff(let retryAfter):
            "artwork failed recently; retry in \(retryAfter.components.seconds + (retryAfter.components.attoseconds > 0 ? 1 : 0)) s"
        }
    }

    /// What a car is told: the same words without anything of the server's (a path, a URI, the
    /// system's or libvips' text, which may name files). The log keeps ``description``.
    public var carMessage: String {
        switch self {
        case .outsideRoots, .unsupportedScheme: "not a cover this server serves"
        case .decodeFailed: "artwork could not be decoded"
        case .io: "artwork could not be read or downloaded"
        case .notRegistered, .invalidSize, .tooLarge, .tooManyPixels, .httpStatus, .tooManyRedirects, .timeout, .storage,
            .backingOff:
            description
        }
    }

    /// Whether this failure belongs to the URI (so it starts the URI's backoff and is reported),
    /// as opposed to the request (unregistered key, bad box) or the backoff itself.
    var isFailureOfSource: Bool {
        switch self {
        case .notRegistered, .invalidSize, .backingOff, .storage: false
        default: true
        }
    }
}
