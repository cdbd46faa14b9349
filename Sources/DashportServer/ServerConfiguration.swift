import DashportMPD
public import DashportLog
public import DashportTransport
public import FoundationEssentials
import Glibc

/// Everything `dashport serve` can be told, from its defaults, a config file and the command line
/// (in that order; later wins).
///
/// The config file uses the command line's long option names as keys, one `key = value` per line,
/// `#` comments, repeated keys for lists:
///
/// ```
/// # /etc/dashport.conf
/// listen = 0.0.0.0:5277
/// allow-fingerprint = 3f9a…
/// log-level = debug
/// ```
public struct ServerConfiguration: Sendable, Equatable {
    /// Where to listen. Loopback by default: binding another address needs a client allowlist.
    public var listen: String = "127.0.0.1:5277"
    /// Holds the server key and certificate, the browse cache, the artwork cache and the session.
    public var stateDirectory: String = ServerConfiguration.defaultStateDirectory()
    /// The browse catalog (JSON); nil = the embedded demo library.
    public var catalog: String?
    /// MPD as the library and the player (`--mpd`: a socket path or host:port); nil: the catalog.
    public var mpd: String?
    /// The password MPD asks for (`mpd-password`, best kept in the config file), if any.
    public var mpdPassword: String?
    /// `--control-socket PATH`: where the control socket goes; nil: the state directory, else a
    /// runtime directory (``ControlSocketLocation``).
    public var controlSocket: String?
    public var logLevel: LogLevel = .info
    /// Head-unit certificates allowed by SHA-256 fingerprint (hex, colons optional).
    public var allowedFingerprints: [String] = []
    /// A PEM file of CAs whose head-unit certificates are allowed.
    public var caFile: String?
    /// Text the car shows for the phone (ServiceDiscoveryRequest label_text / device_name).
    public var label: String = "Dashport"
    public var deviceName: String = "Dashport on Linux"
    /// Limits.
    /// Cars linked at once (past the handshake: TLS, the certificate check and AUTH_COMPLETE).
    public var maxConnections: Int = 256
    /// Connections still in the handshake at once, on top of ``maxConnections``; when full, the
    /// oldest of them is closed for a newcomer. A car that finished its handshake never is.
    public var maxPendingConnections: Int = 64
    /// Connections still in the handshake from one address; beyond it, that address's oldest is
    /// closed. Not applied to loopback peers (every local process shares 127.0.0.1 and ::1) unless
    /// ``limitPendingPerLoopbackAddress`` is set; ``maxPendingConnections`` always applies.
    public var maxPendingPerAddress: Int = 16
    /// Linked cars one address may hold, loopback included (default 128, half the slots), so one
    /// local process cannot keep every car out for ever; `dashport ctl status` says who holds them.
    public var maxCarsPerAddress: Int = 128
    /// Messages a linked car may send per second (bursts of twice that); past it its reading is
    /// paused, and after 30 s over it the car is closed. Real head units send a few a second (pings,
    /// a browse burst, 23 audio ACKs). Was 5,000: a car flooding GET_CHILDREN at that rate cost the
    /// server 15-18 % of a core here, as much as 5,000 good requests, and halved 50 good cars' rate
    /// beside it; at 1,000 it cost 0-4.5 % (`dashport-bench-link`, README *Performance*).
    public var maxMessagesPerSecond: Int = 1000
    /// How long a car may stay over ``maxMessagesPerSecond`` before it is closed.
    public var messageFloodCloseSeconds: Double = 30
    /// Applies ``maxPendingPerAddress`` to loopback peers too (tests of the limit over loopback TCP).
    public var limitPendingPerLoopbackAddress = false
    /// TCP keepalive on car connections, so a car that vanished without a FIN is noticed.
    public var keepAlive: TCPKeepAlive? = .default
    public var handshakeTimeoutSeconds: Double = 10
    /// Silence deadline once the link is up; 0 = off (the default: idle openauto sends nothing).
    public var idleTimeoutSeconds: Double = 0
    /// How long a car may leave more than the outbound high-water mark (192 KiB) unread before it
    /// is closed: the server has stopped serving it meanwhile, so this bounds how long a car that
    /// never reads holds its connection and its queued bytes.
    public var writeStallTimeoutSeconds: Double = 15
    /// When set, every car's session is recorded into this directory as a session recording
    /// (`--record-dir`, off by default; recordings hold what the cars asked for).
    public var recordDirectory: String?
    /// Streams the session's audio to every car that lists a PCM media audio sink (`--no-audio`
    /// turns it off: the sink is then never opened).
    public var audio = true
    /// Also fetch plain `http://` covers (off: covers come over https). For a music server on the
    /// LAN, and for the loopback cover hosts of tests; not a command-line option yet.
    public var artworkAllowPlainHTTP = false
    /// Deadline of one cover download, connection to last byte (the artwork pipeline's default).
    public var artworkDownloadTimeout: Duration = .seconds(10)
    /// Bytes all cars together may make the server hold in unfinished (fragmented) messages; the
    /// car that takes the total over it is closed. Default 64 MiB.
    public var maxUnfinishedMessageBytes = 64 * 1024 * 1024
    /// Reactor threads the cars are spread over (`--reactors`): one per core by default, at most
    /// `EventLoop.maxReactors` (8). Each car's socket and worker stay on one reactor; the core is
    /// shared. The USB gadget keeps its own threads, the control socket is on reactor 0.
    public var reactors: Int = EventLoop.defaultReactorCount
    /// Session defaults (jump distances, caps, the demo player's remote speaker).
    public var session = SessionSettings()
    /// Serve a car over USB too (`--usb-gadget DIR ...`); nil = TCP only.
    public var usbGadget: USBGadgetConfiguration?

    public init() {}

    /// `$XDG_STATE_HOME/dashport`, else `~/.local/state/dashport`.
    public static func defaultStateDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let xdg = environment["XDG_STATE_HOME"], !xdg.isEmpty { return xdg + "/dashport" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.local/state/dashport"
    }

    /// True when `listen` names a loopback address (127.0.0.0/8, ::1, localhost).
    public var listensOnLoopback: Bool {
        let host = ServerConfiguration.host(of: listen)
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    static func host(of address: String) -> String {
        if address.hasPrefix("["), let end = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<end])
        }
        if let colon = address.lastIndex(of: ":") { return String(address[..<colon]) }
        return address
    }

    /// Refuses a configuration that is unsafe or cannot work, with a message saying what to change.
    public func validate() throws(ConfigurationError) {
        do {
            _ = try ListenAddress.parse(listen)  // first: a bad address is not an allowlist problem
        } catch {
            throw ConfigurationError("--listen \(error)")
        }
        if let mpd {
            do throws(MPDAddressError) { _ = try MPDAddress.parse(mpd) } catch { throw ConfigurationError(error.description) }
            if catalog != nil { throw ConfigurationError("--mpd and --catalog both name the library: give one of them") }
        }
        if !listensOnLoopback && allowedFingerprints.isEmpty && caFile == nil {
            throw ConfigurationError(
                "listening on \(listen) (not loopback) needs a head-unit allowlist: "
                    + "give --allow-fingerprint SHA256 or --ca-file FILE, or listen on 127.0.0.1")
        }
        for fingerprint in allowedFingerprints where ServerConfiguration.normalizedFingerprint(fingerprint) == nil {
            throw ConfigurationError("--allow-fingerprint \(fingerprint): not a SHA-256 fingerprint (64 hex digits)")
        }
        if !(1...EventLoop.maxReactors).contains(reactors) {
            throw ConfigurationError("--reactors must be from 1 to \(EventLoop.maxReactors)")
        }
        if maxConnections < 1 { throw ConfigurationError("--max-connections must be at least 1") }
        if maxPendingConnections < 1 { throw ConfigurationError("--max-pending-connections must be at least 1") }
        if maxMessagesPerSecond < 1 { throw ConfigurationError("--max-messages-per-second must be at least 1") }
        if maxCarsPerAddress < 1 { throw ConfigurationError("--max-cars-per-address must be at least 1") }
        if maxPendingPerAddress < 1 { throw ConfigurationError("--max-pending-per-address must be at least 1") }
        if !(handshakeTimeoutSeconds > 0) || !handshakeTimeoutSeconds.isFinite {
            throw ConfigurationError("--handshake-timeout must be a positive number of seconds")
        }
        if !(writeStallTimeoutSeconds > 0) || !writeStallTimeoutSeconds.isFinite {
            throw ConfigurationError("--write-stall-timeout must be a positive number of seconds")
        }
        if !(idleTimeoutSeconds >= 0) || !idleTimeoutSeconds.isFinite {
            throw ConfigurationError("--idle-timeout must be 0 (off) or a positive number of seconds")
        }
        try usbGadget?.validate()
    }

    /// Lowercase hex without separators, or nil if it is not 32 bytes of hex.
    public static func normalizedFingerprint(_ text: String) -> String? {
        let hex = text.lowercased().filter { $0 != ":" && $0 != " " }
        guard hex.count == 64, hex.allSatisfy(\.isHexDigit) else { return nil }
        return hex
    }
}

/// A configuration the server refuses to start with; the text says what to change.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }

    /// A file operation's failure in words: the system's reason ("No such file or directory",
    /// "Permission denied") when the error carries one, else the error itself. `FoundationEssentials`
    /// has no `localizedDescription`; Foundation's ("The operation could not be completed. The
    /// file doesn’t exist.") said less anyway.
    static func reason(_ error: any Error) -> String {
        if let error = error as? CocoaError, let posix = error.underlying as? POSIXError {
            return String(cString: strerror(posix.code.rawValue))
        }
        if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        return "\(error)"
    }
}
