import DashportHeadUnit
import DashportMessages

/// A row of the list on screen, by its 1-based number, or an item by id (`id:42` forces an id
/// that looks like a number).
public enum ItemReference: Sendable, Hashable {
    case row(Int)
    case id(String)

    init(_ text: String) {
        if text.hasPrefix("id:") {
            self = .id(String(text.dropFirst(3)))
        } else if let row = Int(text), row > 0 {
            self = .row(row)
        } else {
            self = .id(text)
        }
    }
}

/// One command of `dashport-hu browse`, typed at the prompt or read from a script.
public enum EmulatorCommand: Sendable, Hashable {
    /// Browse into a browsable item.
    case open(ItemReference)
    /// Back to the previous list.
    case back
    /// Show page `n` (1-based) of the current list.
    case page(Int)
    case search(String)
    /// PLAY_FROM_MEDIA_ID for a playable item.
    case playItem(ItemReference)
    /// PLAY_FROM_SEARCH (a voice "play …").
    case playFromSearch(String)
    /// GET_ARTWORK for an item's cover, or an artwork key.
    case artwork(ItemReference)
    /// The now-playing view.
    case nowPlaying
    /// A PLAYBACK_COMMAND.
    case transport(DashportMedia.PlaybackCommand.Command)
    /// A media key on the AAP input channel (Android keycode).
    case key(UInt32)
    /// A custom action by its number in the now-playing view or its name, with string extras.
    case customAction(String, extras: [String: String])
    /// Scripts: pause this many milliseconds.
    case wait(milliseconds: Int)
    /// Scripts: fail unless `text` appears in the output since the last `expect` (waiting for it).
    case expect(String)
    case help
    case quit
}

/// Why a command line did not parse.
public struct EmulatorCommandError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line of the script, when it came from one.
    public var line: Int?
    public var text: String

    public init(line: Int? = nil, _ text: String) {
        self.line = line
        self.text = text
    }

    public var description: String { line.map { "line \($0): \(text)" } ?? text }
}

extension EmulatorCommand {
    /// The longest `wait` a script may ask for: one hour.
    public static let maxWaitMilliseconds = 3_600_000

    /// The media keys `key` knows by name, with their Android keycodes.
    public static let mediaKeyNames: [(name: String, keycode: UInt32)] = [
        ("playpause", 85), ("stop", 86), ("next", 87), ("previous", 88), ("play", 126), ("pause", 127),
        ("volup", 24), ("voldown", 25), ("mute", 164),
    ]

    /// Parses one command line; `nil` for a blank line or a `#` comment.
    public static func parse(_ line: String) throws(EmulatorCommandError) -> EmulatorCommand? {
        let trimmed = line.trimmingWhitespace
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
        let word: String
        let rest: String
        if let space = trimmed.firstIndex(where: \.isWhitespace) {
            word = String(trimmed[..<space]).lowercased()
            rest = String(trimmed[space...]).trimmingWhitespace
        } else {
            (word, rest) = (trimmed.lowercased(), "")
        }
        func argument(_ what: String) throws(EmulatorCommandError) -> String {
            guard !rest.isEmpty else { throw EmulatorCommandError("\(word) needs \(what)") }
            return rest
        }
        func number<N: LosslessStringConvertible>(_ what: String, _ type: N.Type) throws(EmulatorCommandError) -> N {
            let text = try argument(what)
            guard let value = N(text) else { throw EmulatorCommandError("\(word): \"\(text)\" is not \(what)") }
            return value
        }
        switch word {
        case "open": return .open(ItemReference(try argument("a row number or an id")))
        case "back": return .back
        case "page":
            let page = try number("a page number (1, 2, ...)", Int.self)
            guard page >= 1 else { throw EmulatorCommandError("page: pages start at 1") }
            return .page(page)
        case "search": return .search(try argument("a query"))
        case "play": return rest.isEmpty ? .transport(.play(DashportMedia.Empty())) : .playItem(ItemReference(rest))
        case "voice": return .playFromSearch(rest)
        case "art": return .artwork(ItemReference(try argument("a row number, an id or an artwork key")))
        case "np": return .nowPlaying
        case "pause": return .transport(.pause(DashportMedia.Empty()))
        case "stop": return .transport(.stop(DashportMedia.Empty()))
        case "seek":
            let seconds = try number("a position in seconds", Double.self)
            guard seconds >= 0, seconds.isFinite else { throw EmulatorCommandError("seek: the position must be 0 or more seconds") }
            return .transport(.seekToMs(Int64(clamping: seconds * 1000)))
        case "next": return .transport(.skipToNext(DashportMedia.Empty()))
        case "prev": return .transport(.skipToPrevious(DashportMedia.Empty()))
        case "skip":
            let index = try number("a queue position (1, 2, ...)", UInt32.self)
            guard index >= 1 else { throw EmulatorCommandError("skip: queue positions start at 1") }
            return .transport(.skipToQueueItem(index - 1))
        case "rate":
            let rate = try number("a playback rate such as 1.5", Double.self)
            guard rate.isFinite else { throw EmulatorCommandError("rate: not a finite number") }
            return .transport(.setRate(rate))
        case "repeat":
            switch try argument("off, one or all").lowercased() {
            case "off": return .transport(.setRepeatMode(.off))
            case "one": return .transport(.setRepeatMode(.one))
            case "all": return .transport(.setRepeatMode(.all))
            default: throw EmulatorCommandError("repeat: say off, one or all")
            }
        case "shuffle":
            switch try argument("on or off").lowercased() {
            case "on": return .transport(.setShuffle(true))
            case "off": return .transport(.setShuffle(false))
            default: throw EmulatorCommandError("shuffle: say on or off")
            }
        case "fwd": return .transport(.jumpForward(DashportMedia.Jump()))
        case "back15", "rew": return .transport(.jumpBack(DashportMedia.Jump()))
        case "sleep":
            let text = try argument("seconds, eot or cancel").lowercased()
            if text == "eot" { return .transport(.setSleepTimer(DashportMedia.SleepTimer(until: .endOfTrack(DashportMedia.Empty())))) }
            if text == "cancel" { return .transport(.cancelSleepTimer(DashportMedia.Empty())) }
            guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
                throw EmulatorCommandError("sleep: say a number of seconds, eot or cancel")
            }
            return .transport(.setSleepTimer(DashportMedia.SleepTimer(until: .durationMs(Int64(clamping: seconds * 1000)))))
        case "action":
            let words = try argument("an action number or name").split(whereSeparator: \.isWhitespace).map(String.init)
            var extras: [String: String] = [:]
            for word in words.dropFirst() {
                guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                    throw EmulatorCommandError("action: extras are key=value, got \"\(word)\"")
                }
                extras[String(word[..<equals])] = String(word[word.index(after: equals)...])
            }
            return .customAction(words[0], extras: extras)
        case "volume", "vol":
            let text = try argument("up, down, mute, unmute or a level 0-100").lowercased()
            switch text {
            case "up": return .transport(.adjustDeviceVolume(1))
            case "down": return .transport(.adjustDeviceVolume(-1))
            case "mute": return .transport(.setDeviceMuted(true))
            case "unmute": return .transport(.setDeviceMuted(false))
            default:
                guard let percent = Double(text.hasSuffix("%") ? String(text.dropLast()) : text), (0...100).contains(percent) else {
                    throw EmulatorCommandError("volume: say up, down, mute, unmute or a level 0-100")
                }
                return .transport(.setDeviceVolume(percent / 100))
            }
        case "key":
            let text = try argument("a key name or keycode").lowercased()
            if let named = mediaKeyNames.first(where: { $0.name == text }) { return .key(named.keycode) }
            guard let code = UInt32(text) else {
                throw EmulatorCommandError("key: say \(mediaKeyNames.map(\.name).joined(separator: ", ")) or a keycode")
            }
            return .key(code)
        case "wait":
            let milliseconds = try number("milliseconds", Int.self)
            guard (0...maxWaitMilliseconds).contains(milliseconds) else {
                throw EmulatorCommandError("wait: milliseconds must be between 0 and \(maxWaitMilliseconds)")
            }
            return .wait(milliseconds: milliseconds)
        case "expect": return .expect(try argument("the text to look for"))
        case "help", "?": return .help
        case "quit", "exit": return .quit
        default: throw EmulatorCommandError("unknown command \"\(word)\"; type help")
        }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and newlines.
    var trimmingWhitespace: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
