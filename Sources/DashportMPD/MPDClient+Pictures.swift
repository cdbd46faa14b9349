// Sources/DashportMPD/MPDClient+Pictures.swift - covers from MPD: albumart (a folder's cover file), readpicture (embedded).

/// A picture MPD sent: its bytes and, for an embedded one, the MIME type its tag declared.
public struct MPDPicture: Sendable, Hashable {
    public var bytes: [UInt8]
    public var mimeType: String?
    public init(bytes: [UInt8], mimeType: String?) {
        self.bytes = bytes
        self.mimeType = mimeType
    }
}

extension MPDClient {
    /// Which picture of a song: the cover file of its folder or the picture in its tags.
    public enum PictureSource: String, Sendable, Hashable {
        /// `albumart`: `cover.jpg` (png, tiff, bmp) in the song's directory.
        case folder = "albumart"
        /// `readpicture`: the picture embedded in the song's tags.
        case embedded = "readpicture"
    }

    /// The picture of `uri` from `source`, read in MPD's binary chunks; nil when there is none
    /// (albumart's "No file exists", readpicture's empty answer). Larger than `maxBytes` is refused
    /// before the rest is read.
    public func picture(of uri: String, from source: PictureSource, maxBytes: Int) async throws(MPDError) -> MPDPicture? {
        var bytes: [UInt8] = []
        var mimeType: String?
        while true {
            let response: MPDResponse
            do throws(MPDError) {
                response = try await run(MPDCommand(source.rawValue, uri, String(bytes.count)))
            } catch {
                if case .ack(let ack) = error, ack.known == .noExist { return nil }
                throw error
            }
            guard let sizeText = response["size"], let size = Int(sizeText), let chunk = response.binary else { return nil }
            guard size <= maxBytes else {
                throw .ack(MPDAck(code: 0, index: 0, command: source.rawValue, message: "the picture is \(size) bytes, over \(maxBytes)"))
            }
            if mimeType == nil { mimeType = response["type"] }
            bytes.append(contentsOf: chunk)
            if chunk.isEmpty || bytes.count >= size { break }
        }
        return bytes.isEmpty ? nil : MPDPicture(bytes: bytes, mimeType: mimeType)
    }
}
