import DashportClock
import DashportDigest
import DashportFiles
import DashportLog
import FoundationEssentials
import Glibc

/// Where a server's control socket goes, and where `dashport ctl` looks for it.
///
/// `--control-socket PATH` names it. Otherwise it is `STATE-DIR/control.sock`, and when the state
/// directory cannot hold a socket (read-only, or a path longer than a socket address allows) a
/// per-user runtime directory does: `$XDG_RUNTIME_DIR/dashport/`, else `/run/dashport/`, under a
/// name that carries a digest of the state directory (`control-<16 hex>.sock`), so servers with
/// different state directories never share one and `ctl --state-dir DIR` finds the right server.
public enum ControlSocketLocation {
    /// The places tried in order, for a server without `--control-socket`.
    public static func candidates(stateDirectory: String, runtimeDirectory: String? = environmentRuntimeDirectory) -> [String] {
        let name = "control-" + String(SHA256.hex(Array(stateDirectory.utf8)).prefix(16)) + ".sock"
        var paths = [Files.join(stateDirectory, ControlServer.socketName)]
        if let runtimeDirectory, !runtimeDirectory.isEmpty { paths.append(Files.join(Files.join(runtimeDirectory, "dashport"), name)) }
        paths.append(Files.join("/run/dashport", name))
        return paths
    }

    /// `$XDG_RUNTIME_DIR`, when set.
    public static var environmentRuntimeDirectory: String? {
        getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }
    }

    /// The socket `dashport ctl` talks to: the first candidate that exists, else the first (whose
    /// absence the connect then reports).
    public static func find(stateDirectory: String, runtimeDirectory: String? = environmentRuntimeDirectory) -> String {
        let paths = candidates(stateDirectory: stateDirectory, runtimeDirectory: runtimeDirectory)
        var status = stat()
        return paths.first { lstat($0, &status) == 0 } ?? paths[0]
    }
}

extension ControlServer {
    /// Opens the control socket at `explicit` (`--control-socket`), else at the first of the
    /// ``ControlSocketLocation/candidates(stateDirectory:runtimeDirectory:)`` that can hold one
    /// (the runtime directory's `dashport` folder is made, 0700).
    ///
    /// Something already at a path (another server listening, a file that is not a socket) is an
    /// error, as before: a second server on one state directory must not start. A place that
    /// cannot hold a socket is only logged; when none can, the server serves without one, with a
    /// warning (nil), because cars matter more than `dashport ctl`.
    static func open(
        explicit: String?, stateDirectory: String, service: ControlService, logger: Logger, clock: any DashportClock,
        runtimeDirectory: String? = ControlSocketLocation.environmentRuntimeDirectory
    ) throws(ConfigurationError) -> ControlServer? {
        let paths =
            explicit.map { [$0] } ?? ControlSocketLocation.candidates(stateDirectory: stateDirectory, runtimeDirectory: runtimeDirectory)
        var failures: [String] = []
        for (index, path) in paths.enumerated() {
            var status = stat()
            // Something is there: a stale socket is replaced, anything else refused (never skipped).
            if lstat(path, &status) == 0 {
                return try start(path: path, service: service, logger: logger, clock: clock)
            }
            if explicit == nil, index > 0, let slash = path.lastIndex(of: "/") {
                _ = try? Files.makeDirectory(String(path[..<slash]))
            }
            do throws(ConfigurationError) {
                let server = try start(path: path, service: service, logger: logger, clock: clock)
                if !failures.isEmpty {
                    logger.notice(
                        "the state directory cannot hold the control socket; it is elsewhere",
                        ["path": path, "because": failures.joined(separator: "; ")])
                }
                return server
            } catch {
                failures.append(error.description)
            }
        }
        logger.warning(
            "no control socket could be made; serving without one (dashport ctl cannot reach this server; give --control-socket PATH)",
            ["tried": failures.joined(separator: "; ")])
        return nil
    }
}
