// Sources/DashportMPDSource/MPDCoverStore.swift - covers read from MPD, handed to the artwork pipeline as files.

import DashportDigest
import DashportFiles
import DashportLog
import DashportMPD
import Glibc
import Synchronization

/// Reads a song's cover from MPD (`albumart`: the folder's cover file; else `readpicture`: the
/// picture in its tags) and writes it once under ``directory`` as `<sha256>.jpg|png`, named by
/// content. The browse items carry its `file://` URI; the artwork pipeline (whose roots include
/// ``directory``) registers, keys by content, downscales and caches it like any catalog cover, so
/// a changed cover is a new key and the same picture in many albums is one file.
///
/// What MPD answered is remembered per folder (at most ``capacity`` folders; forgotten on a
/// database change), so a page of albums costs MPD one look-up per album once.
final class MPDCoverStore: Sendable {
    let directory: String
    let client: MPDClient
    let logger: Logger
    static let capacity = 4096
    static let maxBytes = 16 * 1024 * 1024
    private let known = Mutex<[String: String?]>([:])

    init(directory: String, client: MPDClient, logger: Logger) {
        self.directory = directory
        self.client = client
        self.logger = logger
    }

    func forget() { known.withLock { $0.removeAll() } }

    /// Whether what MPD said about `song`'s folder is remembered (a cover, or none).
    func knows(_ song: MPDSong) -> Bool { known.withLock { $0[song.directory] != nil } }

    /// The cover of `uri`'s folder (or of `uri` itself), as a `file://` URI; nil when it has none
    /// or it cannot be read (logged: the item is shown without a cover).
    func cover(for song: MPDSong) async -> String? {
        if let remembered = known.withLock({ $0[song.directory] }) { return remembered }
        var found: String?
        do throws(MPDError) {
            var picture = try await client.picture(of: song.uri, from: .folder, maxBytes: Self.maxBytes)
            if picture == nil { picture = try await client.picture(of: song.uri, from: .embedded, maxBytes: Self.maxBytes) }
            if let picture { found = store(picture, for: song.uri) }
        } catch {
            logger.warning("cannot read the cover of \(song.uri) from MPD: \(error); shown without one", ["song": song.uri])
            if error.isConnectionFault { return nil }  // not remembered: MPD may answer next time
        }
        known.withLock { known in
            if known.count >= Self.capacity { known.removeAll() }
            known[song.directory] = .some(found)
        }
        return found
    }

    private func store(_ picture: MPDPicture, for uri: String) -> String? {
        let bytes = picture.bytes
        let ext: String
        if bytes.starts(with: [0xFF, 0xD8]) {
            ext = "jpg"
        } else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            ext = "png"
        } else {
            logger.warning("the cover of \(uri) is neither JPEG nor PNG (\(picture.mimeType ?? "no type")); shown without one")
            return nil
        }
        let path = directory + "/" + String(SHA256.hex(bytes).prefix(32)) + "." + ext
        if access(path, F_OK) != 0 {
            do {
                _ = try Files.makeDirectory(directory)
                try Files.writeAtomically(bytes, to: path)
            } catch {
                logger.error("cannot write a cover into \(directory): \(error)")
                return nil
            }
        }
        return "file://" + path
    }
}
