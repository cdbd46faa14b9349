#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who may change Dashport's state: only the user the server runs as (or root).
///
/// ssh's `StrictModes` is the model. A state or record directory that another user can write to
/// lets that user replace the server's key and certificate, or swap a symbolic link in where a
/// recording is about to be written; a key that others can read is no longer a secret. These are
/// refused with the `chmod`/`chown` that fixes them, never silently used.
extension Files {
    /// Refuses a directory that is writable by group or others (sticky or not) or owned by a user
    /// other than the one running (or root). `purpose` names the directory in the error
    /// (`state directory`, `record directory`).
    public static func checkPrivateDirectory(_ path: String, purpose: String) throws(FileError) {
        guard let status = status(path) else { throw .system("check the \(purpose)", path) }
        guard status.isDirectory else { throw FileError("use the \(purpose)", path, .notADirectory) }
        try checkOwner(status, path, purpose: purpose)
        if status.mode & 0o022 != 0 {
            throw FileError(
                "use the \(purpose)", path,
                .notPrivate(
                    problem: "other users can write to it (mode \(octal(status.mode)))",
                    fix: "chmod go-w \(path) (0700 is best)"))
        }
    }

    /// Refuses a file owned by another user (not root) or with any of `forbidden` permission bits
    /// set: `0o077` for a private key (nobody else may read it), `0o022` for a certificate (anyone
    /// may read it, nobody else may change it).
    public static func checkPrivateFile(_ path: String, purpose: String, forbidden: UInt32) throws(FileError) {
        guard let status = status(path) else { throw .system("check the \(purpose)", path) }
        try checkOwner(status, path, purpose: purpose)
        if status.mode & forbidden != 0 {
            let allowed = 0o777 & ~forbidden & ~0o111
            let who = forbidden & 0o044 != 0 ? "other users can read it" : "other users can write to it"
            throw FileError(
                "use the \(purpose)", path,
                .notPrivate(
                    problem: "\(who) (mode \(octal(status.mode)))",
                    fix: "chmod \(octal(UInt32(allowed))) \(path)"))
        }
    }

    private static func checkOwner(_ status: Status, _ path: String, purpose: String) throws(FileError) {
        let me = UInt32(geteuid())
        guard status.owner != me, status.owner != 0 else { return }
        throw FileError(
            "use the \(purpose)", path,
            .notPrivate(
                problem: "it is owned by user \(status.owner), not by this user (\(me))",
                fix: "chown \(me) \(path), or use a directory of this user's"))
    }

    private static func octal(_ mode: UInt32) -> String { "0" + String(mode & 0o7777, radix: 8) }
}
