// Sources/DashportControl/ControlRequest.swift - one line of the control protocol, parsed.

public import DashportSession

/// A request on the control socket (`dashport ctl ...`): one line, a command and its arguments.
/// The grammar and every command are in the DashportServer DocC article "Controlling a running
/// server"; ``ControlRequest/usage`` is the short form both `dashport ctl help` and the server's
/// `help` answer print.
public enum ControlRequest: Sendable, Hashable {
    /// The command list.
    case help
    /// The server: version, address, catalog, cars, uptime, the last catalog reload.
    case status
    /// The connected cars, one line each.
    case cars
    /// Forget the cached children of one parent (nil: of everything) and push children-changed to
    /// every connected car.
    case invalidate(parentId: String?)
    /// Read the catalog file again now (as SIGHUP does).
    case reload
    /// The session's state, one line.
    case showSession
    /// A command for the shared session, as if from a car (source `local`).
    case session(SessionCommand)

    /// The longest request line, terminator included. Longer is refused and the connection closed.
    public static let maxLineBytes = 1024
    /// The most arguments a request has.
    static let maxArguments = 8

    public static let usage: [String] = [
        "status                     the server: version, address, catalog, cars, uptime",
        "cars                       the connected cars, one per line",
        "invalidate PARENT-ID       push children-changed for one parent (a car re-asks)",
        "invalidate --all           the same for every parent",
        "reload                     read the catalog file again (as SIGHUP does)",
        "session                    the playback state, one line",
        "session play|pause|toggle|stop|next|previous|jump-forward|jump-back",
        "session seek SECONDS       (fractions allowed, e.g. 61.5)",
        "session skip N             play the Nth queue entry (1 = first)",
        "session rate X             playback speed, 0 < X <= 16",
        "session repeat off|one|all",
        "session shuffle on|off",
        "session sleep MINUTES|end-of-track|off",
        "session play-id MEDIA-ID   play a browse item (its list becomes the queue)",
        "session volume PERCENT|up|down|mute|unmute   the declared remote device's volume",
        "help                       this list",
    ]

    /// Parses one request line (without its line feed; a trailing carriage return is allowed).
    public static func parse(_ line: some Collection<UInt8>) throws(ControlError) -> ControlRequest {
        let words = try ControlWords.split(line)
        guard let command = words.first else { throw ControlError("empty request; try 'help'") }
        let arguments = Array(words.dropFirst())
        func expect(_ count: Int, _ form: String) throws(ControlError) {
            guard arguments.count == count else { throw ControlError("usage: \(form)") }
        }
        switch command {
        case "help":
            return .help
        case "status":
            try expect(0, "status")
            return .status
        case "cars":
            try expect(0, "cars")
            return .cars
        case "reload":
            try expect(0, "reload")
            return .reload
        case "invalidate":
            try expect(1, "invalidate PARENT-ID | invalidate --all")
            if arguments[0] == "--all" { return .invalidate(parentId: nil) }
            guard !arguments[0].isEmpty else { throw ControlError("invalidate: the parent id is empty") }
            return .invalidate(parentId: arguments[0])
        case "session":
            guard let verb = arguments.first else { return .showSession }
            return .session(try sessionCommand(verb, Array(arguments.dropFirst())))
        default:
            throw ControlError("unknown command '\(ControlWords.shown(command))'; try 'help'")
        }
    }

    private static func sessionCommand(_ verb: String, _ arguments: [String]) throws(ControlError) -> SessionCommand {
        func one(_ form: String) throws(ControlError) -> String {
            guard arguments.count == 1 else { throw ControlError("usage: session \(form)") }
            return arguments[0]
        }
        func none() throws(ControlError) {
            guard arguments.isEmpty else { throw ControlError("usage: session \(verb) (no arguments)") }
        }
        switch verb {
        case "play":
            try none()
            return .play
        case "pause":
            try none()
            return .pause
        case "toggle":
            try none()
            return .playPause
        case "stop":
            try none()
            return .stop
        case "next":
            try none()
            return .skipToNext
        case "previous", "prev":
            try none()
            return .skipToPrevious
        case "jump-forward":
            try none()
            return .jumpForward
        case "jump-back":
            try none()
            return .jumpBack
        case "seek":
            let text = try one("seek SECONDS")
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 1e9 else {
                throw ControlError("session seek: '\(ControlWords.shown(text))' is not a number of seconds (0 or more)")
            }
            return .seekTo(ms: Int64((seconds * 1000).rounded()))
        case "skip":
            let text = try one("skip N")
            guard let number = Int(text), number >= 1, number <= 1_000_000 else {
                throw ControlError("session skip: '\(ControlWords.shown(text))' is not a queue position (1 = first)")
            }
            return .skipToQueueItem(number - 1)
        case "rate":
            let text = try one("rate X")
            guard let rate = Double(text), rate.isFinite, rate > 0, rate <= PlaybackState.maxRate else {
                throw ControlError(
                    "session rate: '\(ControlWords.shown(text))' is not a speed above 0 and at most \(Int(PlaybackState.maxRate))")
            }
            return .setRate(rate)
        case "repeat":
            let text = try one("repeat off|one|all")
            switch text {
            case "off", "none": return .setRepeatMode(.none)
            case "one": return .setRepeatMode(.one)
            case "all": return .setRepeatMode(.all)
            default: throw ControlError("session repeat: '\(ControlWords.shown(text))' is not off, one or all")
            }
        case "shuffle":
            let text = try one("shuffle on|off")
            switch text {
            case "on": return .setShuffle(true)
            case "off": return .setShuffle(false)
            default: throw ControlError("session shuffle: '\(ControlWords.shown(text))' is not on or off")
            }
        case "sleep":
            let text = try one("sleep MINUTES|end-of-track|off")
            switch text {
            case "off": return .cancelSleepTimer
            case "end-of-track": return .setSleepTimer(.endOfTrack)
            default:
                guard let minutes = Double(text), minutes.isFinite, minutes > 0, minutes <= 24 * 60 else {
                    throw ControlError(
                        "session sleep: '\(ControlWords.shown(text))' is not minutes (above 0, at most 1440), end-of-track or off")
                }
                return .setSleepTimer(.duration(ms: minutes * 60_000))
            }
        case "volume":
            // Remote playback (design "Session core"): refused by the session, like a car's volume
            // command, when no remote device is declared or its control is fixed.
            let text = try one("volume PERCENT|up|down|mute|unmute")
            switch text {
            case "up": return .adjustDeviceVolume(steps: 1)
            case "down": return .adjustDeviceVolume(steps: -1)
            case "mute": return .setDeviceMuted(true)
            case "unmute": return .setDeviceMuted(false)
            default:
                guard let percent = Double(text), percent.isFinite, percent >= 0, percent <= 100 else {
                    throw ControlError(
                        "session volume: '\(ControlWords.shown(text))' is not a percentage (0 to 100), up, down, mute or unmute")
                }
                return .setDeviceVolume(percent / 100)
            }
        case "play-id":
            let id = try one("play-id MEDIA-ID")
            guard !id.isEmpty else { throw ControlError("session play-id: the media id is empty") }
            return .playFromMediaId(id)
        default:
            throw ControlError("unknown session command '\(ControlWords.shown(verb))'; try 'help'")
        }
    }
}

extension ControlRequest {
    /// A session command as it is typed after `session` (`volume up`, `skip 3`, `seek 61.5`), for
    /// answers a person reads.
    public static func words(for command: SessionCommand) -> String {
        switch command {
        case .play: "play"
        case .pause: "pause"
        case .playPause: "toggle"
        case .stop: "stop"
        case .seekTo(let ms): "seek \(Double(ms) / 1000)"
        case .jumpForward: "jump-forward"
        case .jumpBack: "jump-back"
        case .skipToNext: "next"
        case .skipToPrevious: "previous"
        case .skipToQueueItem(let index): "skip \(index &+ 1)"
        case .setRate(let rate): "rate \(rate)"
        case .setRepeatMode(let mode): "repeat \(mode == .none ? "off" : mode.rawValue)"
        case .setShuffle(let on): "shuffle \(on ? "on" : "off")"
        case .customAction(let name, _): "action \(ControlWords.shown(name))"
        case .playFromMediaId(let id, _): "play-id \(ControlWords.shown(id))"
        case .playFromSearch: "play from search"
        case .setSleepTimer(.endOfTrack): "sleep end-of-track"
        case .setSleepTimer(.duration(let ms)): "sleep \(ms / 60_000)"
        case .cancelSleepTimer: "sleep off"
        case .setDeviceVolume(let volume): "volume \(Int((volume * 100).rounded()))"
        case .adjustDeviceVolume(let steps): steps >= 0 ? "volume up" : "volume down"
        case .setDeviceMuted(let muted): muted ? "volume mute" : "volume unmute"
        case .toggleDeviceMute: "volume mute/unmute"
        }
    }
}

/// Why a control request or response was refused; the text is what the person or script sees.
public struct ControlError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
