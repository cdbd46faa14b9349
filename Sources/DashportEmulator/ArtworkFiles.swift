import DashportHeadUnit
import DashportMessages
import Glibc

/// Why a cover could not be written.
public struct ArtworkSaveError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public var description: String { "cannot write \(path): \(reason)" }
}

/// Saves covers for `dashport-hu browse --save-art DIR`: `DIR/<key>.<jpg|png>`, written atomically
/// (temporary file, fsync, rename), so a reader never sees half a file.
public enum ArtworkFiles {
    /// The longest file name stem taken from a key; longer keys are cut.
    public static let maxStemLength = 120

    /// `<key>.<jpg|png>` with every character other than letters, digits, `.`, `_` and `-` replaced
    /// by `_`, and no leading dot, so a key can never name another directory or a hidden file.
    public static func fileName(key: String, mimeType: String) -> String {
        var stem = String(key.unicodeScalars.prefix(maxStemLength).map { scalar -> Character in
            let allowed = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || scalar == "." || scalar == "_" || scalar == "-")
            return allowed ? Character(scalar) : "_"
        })
        if stem.isEmpty || stem.hasPrefix(".") { stem = "_" + stem }
        return stem + (mimeType.lowercased() == "image/png" ? ".png" : ".jpg")
    }

    /// Writes the image's bytes into `directory` (created if missing) and returns the path written.
    public static func save(_ image: DashportMedia.ArtworkImage, key: String, directory: String) throws(ArtworkSaveError) -> String {
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            throw ArtworkSaveError(path: directory, reason: "mkdir: \(String(cString: strerror(errno)))")
        }
        let path = (directory.hasSuffix("/") ? directory : directory + "/") + fileName(key: key, mimeType: image.mimeType)
        try writeAtomically(image.data, to: path)
        return path
    }

    /// Temporary file next to `path`, every byte written, fsync, rename over `path`, fsync of the directory.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(ArtworkSaveError) {
        let temporary = path + ".tmp-\(getpid())"
        func failure(_ call: String) -> ArtworkSaveError {
            ArtworkSaveError(path: path, reason: "\(call): \(String(cString: strerror(errno)))")
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("open") }
        var written = 0
        var problem: ArtworkSaveError?
        bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                // baseAddress is non-nil whenever count > 0, which the loop condition ensures.
                let result = write(fd, buffer.baseAddress! + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    problem = failure("write")
                    return
                }
                written += result
            }
        }
        if problem == nil, fsync(fd) != 0 { problem = failure("fsync") }
        if close(fd) != 0, problem == nil { problem = failure("close") }
        if problem == nil, rename(temporary, path) != 0 { problem = failure("rename") }
        if let problem {
            unlink(temporary)
            throw problem
        }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let directoryFD = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)  // best effort: the file itself is already durable
            close(directoryFD)
        }
    }
}
