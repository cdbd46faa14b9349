import CDashportLinux
import Foundation
import Glibc

/// A real headless Chromium (Debian's `chromium`, installed by tools/setup) driven over the Chrome
/// DevTools Protocol on `--remote-debugging-pipe`: the browser tests of the web head-unit emulator.
///
/// Started with `posix_spawn` (Foundation's `Process` cannot hand a child fds 3 and 4) in a
/// temporary profile, with a fixed window, audio allowed to start without a gesture, and
/// `--no-sandbox` only when the tests run as root (Chromium refuses to start otherwise). Every wait
/// has a generous deadline (``defaultTimeout``) and fails with what it waited for. Use
/// ``with(_:)``: it closes the browser (Browser.close, then kill and reap) whatever the body did.
/// Tests skip themselves where no chromium exists: `.enabled(if: BrowserHarness.isAvailable)`.
public final class BrowserHarness: Sendable {
    /// The viewport every page gets (Emulation.setDeviceMetricsOverride): screenshots are this size.
    public static let windowWidth = 1280
    public static let windowHeight = 800

    /// Deadline of every wait: far above anything a page needs, so that it holds at load 30.
    public static let defaultTimeout: Duration = .seconds(120)

    /// `DASHPORT_CHROMIUM`, else Debian's `/usr/bin/chromium`, else `chromium` on PATH.
    public static let chromiumPath: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["DASHPORT_CHROMIUM"], !path.isEmpty { return path }
        let directories = ["/usr/bin"] + (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        for directory in directories {
            for name in ["chromium", "chromium-browser"] where access(directory + "/" + name, X_OK) == 0 {
                return directory + "/" + name
            }
        }
        return nil
    }()

    /// Whether browser tests can run here.
    public static var isAvailable: Bool { chromiumPath != nil }

    /// Where screenshots are saved: `.build/browser-artifacts` of this package (`DASHPORT_BROWSER_ARTIFACTS` overrides).
    public static let artifactDirectory: String = {
        if let path = ProcessInfo.processInfo.environment["DASHPORT_BROWSER_ARTIFACTS"], !path.isEmpty { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/browser-artifacts").path
    }()

    let pipe: DevToolsPipe
    private let profile: TemporaryDirectory

    private init(pipe: DevToolsPipe, profile: TemporaryDirectory) {
        self.pipe = pipe
        self.profile = profile
    }

    /// Starts chromium and waits until it answers over the pipe.
    public static func launch() async throws -> BrowserHarness {
        guard let chromium = chromiumPath else { throw BrowserFailure("no chromium here (tools/setup installs it)") }
        // A write to the pipe of a chromium that just died must fail with EPIPE, not kill the tests.
        signal(SIGPIPE, SIG_IGN)
        let profile = try TemporaryDirectory()
        var arguments = [
            chromium, "--headless=new", "--remote-debugging-pipe", "--user-data-dir=\(profile.file("profile"))",
            "--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-extensions", "--disable-sync",
            "--disable-background-networking", "--disable-component-update", "--disable-dev-shm-usage",
            "--window-size=\(windowWidth),\(windowHeight)", "--autoplay-policy=no-user-gesture-required", "about:blank",
        ]
        if geteuid() == 0 { arguments.insert("--no-sandbox", at: 1) }
        let pipe = try spawn(arguments, log: profile.file("chromium.log"))
        let harness = BrowserHarness(pipe: pipe, profile: profile)
        do {
            _ = try await pipe.command("Browser.getVersion", timeout: defaultTimeout)
        } catch {
            await harness.close()
            throw error
        }
        return harness
    }

    /// Starts chromium, runs `body`, and closes chromium (awaited) whether `body` returned or threw.
    public static func with<T>(_ body: (BrowserHarness) async throws -> T) async throws -> T {
        let harness = try await launch()
        do {
            let result = try await body(harness)
            await harness.close()
            return result
        } catch {
            await harness.close()
            throw error
        }
    }

    /// A new tab showing `url`, returned once its load event fired.
    public func open(_ url: String) async throws -> BrowserPage {
        let page = try await BrowserPage.create(in: self)
        try await page.navigate(url)
        return page
    }

    /// What chromium printed last (its log), for a failure message.
    public var logTail: String { pipe.logTail }

    /// Browser.close, then (if chromium has not exited within the deadline) SIGKILL to its process
    /// group (its renderers and zygote with it); always reaps it and removes the temporary profile.
    public func close() async {
        _ = try? await pipe.command("Browser.close", timeout: .seconds(30))
        pipe.closeCommands()
        if (try? await pipe.exit(timeout: Self.defaultTimeout)) == nil {
            pipe.signal(SIGKILL)
            _ = try? await pipe.exit(timeout: Self.defaultTimeout)
        }
        profile.remove()
    }

    /// posix_spawn with the command pipe's read end as fd 3 and the reply pipe's write end as fd 4,
    /// stdin from /dev/null, stdout and stderr into `log`, nothing else inherited, its own process group.
    private static func spawn(_ arguments: [String], log: String) throws -> DevToolsPipe {
        let commands = try Self.pipePair()
        let replies = try Self.pipePair()
        defer {
            Glibc.close(commands.read)
            Glibc.close(replies.write)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_adddup2(&actions, commands.read, 3)
        posix_spawn_file_actions_adddup2(&actions, replies.write, 4)
        cdashport_spawn_close_from(&actions, 5)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
        guard result == 0 else {
            Glibc.close(commands.write)
            Glibc.close(replies.read)
            throw BrowserFailure("posix_spawn \(arguments[0]): \(String(cString: strerror(result)))")
        }
        return DevToolsPipe(pid: pid, writeFD: commands.write, readFD: replies.read, logPath: log)
    }

    /// A close-on-exec pipe whose ends are above 9, so the dup2s onto fds 3 and 4 never clobber each other.
    private static func pipePair() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        // pipe2 is declared only under _GNU_SOURCE; no other thread spawns here between pipe and fcntl.
        guard Glibc.pipe(&ends) == 0 else { throw BrowserFailure("pipe: \(String(cString: strerror(errno)))") }
        for index in ends.indices {
            let moved = fcntl(ends[index], F_DUPFD_CLOEXEC, 10)
            Glibc.close(ends[index])
            guard moved >= 0 else { throw BrowserFailure("fcntl: \(String(cString: strerror(errno)))") }
            ends[index] = moved
        }
        return (ends[0], ends[1])
    }
}
