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
