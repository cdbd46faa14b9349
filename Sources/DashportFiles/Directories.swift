#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Files {
    /// Makes sure `path` is a directory, creating it (only it: never a missing parent) with
    /// exactly `mode` whatever the umask. Returns true when it was created, so the caller can say
    /// so; an existing directory is left as it is.
    @discardableResult
    public static func makeDirectory(_ path: String, mode: mode_t = 0o700) throws(FileError) -> Bool {
        if let existing = status(path) {
            guard existing.isDirectory else { throw FileError("use directory", path, .notADirectory) }
            return false
        }
        guard mkdir(path, mode) == 0 else {
            if errno == EEXIST, status(path)?.isDirectory == true { return false }  // created meanwhile
            if errno == ENOENT {
                throw FileError("create directory", path, .missingParent(split(trimmed(path)).directory))
            }
            throw .system("create directory", path)
        }
        guard chmod(path, mode) == 0 else { throw .system("set the mode of", path) }
        return true
    }

    /// `path` without trailing slashes (but `/` stays `/`).
    private static func trimmed(_ path: String) -> String {
        var result = Substring(path)
        while result.count > 1, result.hasSuffix("/") { result = result.dropLast() }
        return String(result)
    }
}
