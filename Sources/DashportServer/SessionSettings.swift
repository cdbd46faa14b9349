public import DashportCommandLine
public import DashportSession

/// The session defaults `dashport serve` takes (command line or config file, same keys): jump
/// distances, checkpoint interval, queue and sleep-timer caps, and the demo player's remote speaker.
///
/// Its rows join ``ConfigurationParser/serveOptions``; the parser hands it the keys it does not
/// apply itself (``apply(key:value:origin:)`` answers false for keys that are not its own).
public struct SessionSettings: Sendable, Equatable {
    /// Seconds a jump forward / back moves (default 15 each).
    public var jumpForwardSeconds: Double = 15
    public var jumpBackSeconds: Double = 15
    /// Seconds between writes of a playing session (default 30).
    public var checkpointSeconds: Double = 30
    /// The longest queue (default 1000).
    public var maxQueueLength: Int = 1000
    /// The longest sleep timer, in minutes (default 24 h).
    public var maxSleepTimerMinutes: Double = 24 * 60
    /// The demo player plays on a simulated remote speaker with this volume control; nil: local.
    public var remoteVolume: RemotePlayback.Control?

    public init() {}

    /// The rows `dashport serve` adds to its option table (``ConfigurationParser/serveOptions``).
    public static let options: [OptionSpec] = [
        .value("jump-forward", "SECONDS", "how far jump forward moves (default 15)"),
        .value("jump-back", "SECONDS", "how far jump back moves (default 15)"),
        .value("checkpoint-interval", "SECONDS", "how often a playing session is saved (default 30, at least 1)"),
        .value("max-queue", "N", "the longest queue played from a list (default 1000)"),
        .value("max-sleep-timer", "MINUTES", "the longest sleep timer accepted (default 1440)"),
        .value(
            "remote-volume", "CONTROL",
            "demo player: play on a simulated remote speaker whose volume is absolute, relative or fixed (default: local)"),
    ]

    /// Sets `key` if it is one of ``options``; false for any other key.
    public mutating func apply(key: String, value: String, origin: String) throws(ConfigurationError) -> Bool {
        func seconds(_ minimum: Double) throws(ConfigurationError) -> Double {
            guard let number = Double(value), number.isFinite, number >= minimum else {
                throw ConfigurationError("\(origin): \(key) needs a number of at least \(minimum), got '\(value)'")
            }
            return number
        }
        switch key {
        case "jump-forward": jumpForwardSeconds = try seconds(0.001)
        case "jump-back": jumpBackSeconds = try seconds(0.001)
        case "checkpoint-interval": checkpointSeconds = try seconds(1)
        case "max-queue":
            guard let count = Int(value), count >= 1 else {
                throw ConfigurationError("\(origin): max-queue needs a whole number of at least 1, got '\(value)'")
            }
            maxQueueLength = count
        case "max-sleep-timer": maxSleepTimerMinutes = try seconds(1.0 / 60)
        case "remote-volume":
            if value == "local" || value == "none" {
                remoteVolume = nil
            } else {
                guard let control = RemotePlayback.Control(rawValue: value) else {
                    throw ConfigurationError("\(origin): remote-volume must be absolute, relative, fixed or local; got '\(value)'")
                }
                remoteVolume = control
            }
        default:
            return false
        }
        return true
    }

    /// The session core's configuration with these defaults.
    public var sessionConfiguration: SessionConfiguration {
        SessionConfiguration(
            jumpForwardMs: Self.milliseconds(jumpForwardSeconds), jumpBackMs: Self.milliseconds(jumpBackSeconds),
            checkpointIntervalMs: Self.milliseconds(checkpointSeconds), maxQueueLength: maxQueueLength,
            maxSleepTimerMs: Self.milliseconds(maxSleepTimerMinutes * 60))
    }

    private static func milliseconds(_ seconds: Double) -> Int64 {
        let ms = (seconds * 1000).rounded()
        guard ms.isFinite else { return .max }
        return ms >= 0x1p62 ? Int64(1) << 62 : Int64(max(1, ms))
    }
}
