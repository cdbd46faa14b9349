/// What the artwork endpoint tells the rest of the server, on ``ArtworkService/notifications()``.
public enum ArtworkNotification: Sendable, Hashable {
    /// `artworkFailed`, severity degraded: a URI could not be served. Sent once per URI until it
    /// works again. The URI comes without its query and user info (they may hold tokens).
    case failed(key: ArtworkKey, uri: String, reason: ArtworkError)

    /// How bad it is for the session: a missing cover never stops playback.
    public enum Severity: String, Sendable, Hashable { case degraded }

    /// The session error code: `artworkFailed`.
    public var code: String {
        switch self {
        case .failed: "artworkFailed"
        }
    }

    public var severity: Severity {
        switch self {
        case .failed: .degraded
        }
    }
}
