import DashportBrowse
import DashportSession

/// An encoded cover, as the artwork endpoint serves it.
public struct MediaChannelArtworkImage: Sendable, Hashable {
    public var bytes: [UInt8]
    /// `image/jpeg` or `image/png`.
    public var mimeType: String
    /// The actual size, which fits the box asked for.
    public var width: Int
    public var height: Int

    public init(bytes: [UInt8], mimeType: String, width: Int, height: Int) {
        self.bytes = bytes
        self.mimeType = mimeType
        self.width = width
        self.height = height
    }
}

/// Why the artwork endpoint served no image; the car gets it as an `ArtworkError`.
///
/// Suggested mapping from `DashportArtwork.ArtworkError`: `notRegistered`, `outsideRoots` and
/// `unsupportedScheme` → ``Code/notFound``; `tooLarge`, `httpStatus`, `tooManyRedirects`,
/// `timeout`, `io` and `backingOff` → ``Code/fetchFailed``; `decodeFailed` and `tooManyPixels` →
/// ``Code/decodeFailed``; anything else → ``Code/unknown``. The message is the error's description.
public struct MediaChannelArtworkFailure: Error, Sendable, Hashable {
    public enum Code: Sendable, Hashable, CaseIterable {
        case notFound, fetchFailed, decodeFailed, busy, unknown
    }

    public var code: Code
    public var message: String

    public init(code: Code = .unknown, message: String) {
        self.code = code
        self.message = message
    }
}
