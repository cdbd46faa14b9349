import DashportFiles
import DashportHeadUnit
public import DashportMessages

/// Why a cover could not be written.
public struct ArtworkSaveError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public var description: String { "cannot write \(path): \(reason)" }
}

/// Saves covers for `dashport-hu browse --save-art DIR`: `DIR/<key>.<jpg|png>`, written atomically
/// (``Files/writeAtomically(_:to:mode:)``, mode 0644: covers are for viewing), so a reader never
/// sees half a file.
public enum ArtworkFiles {
    /// The longest file name stem taken from a key; longer keys are cut.
    public static let maxStemLength = 120

    /// `<key>.<jpg|png>` with every character other than letters, digits, `.`, `_` and `-` replaced
    /// by `_`, and no leading dot, so a key can never name another directory or a hidden file.
    public static func fileName(key: String, mimeType: String) -> String {
        var stem = String(
            key.unicodeScalars.prefix(maxStemLength).map { scalar -> Character in
                let allowed =
                    scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                        || scalar == "." || scalar == "_" || scalar == "-")
                return allowed ? Character(scalar) : "_"
            })
        if stem.isEmpty || stem.hasPrefix(".") { stem = "_" + stem }
        return stem + (mimeType.lowercased() == "image/png" ? ".png" : ".jpg")
    }

    /// Writes the image's bytes into `directory` (created, mode 0755, if missing; its parent must
    /// exist) and returns the path written.
    public static func save(_ image: DashportMedia.ArtworkImage, key: String, directory: String) throws(ArtworkSaveError) -> String {
        let path = Files.join(directory, fileName(key: key, mimeType: image.mimeType))
        do {
            try Files.makeDirectory(directory, mode: 0o755)
            try Files.writeAtomically(image.data, to: path, mode: 0o644)
        } catch {
            throw ArtworkSaveError(path: error.path, reason: "\(error.operation): \(error.causeText)")
        }
        return path
    }
}
