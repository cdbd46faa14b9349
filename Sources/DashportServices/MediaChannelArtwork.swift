import DashportBrowse
import DashportSession

/// An encoded cover, as the artwork endpoint serves it.
///
/// The same four fields as `DashportArtwork.ArtworkImage`, on purpose: the services are sans-IO and
/// import nothing of the artwork pipeline (libvips, libcurl, the disk cache), and no module below
/// both is a fitting home for an image. The server converts one into the other where it bridges
/// the two (`CarServices+MediaChannel.swift`).
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
