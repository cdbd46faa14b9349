/// A `dashport-hu browse --script` file: the interactive commands, one per line, with `#`
/// comments and blank lines, plus `wait <ms>` and `expect <text>` for tests.
public struct EmulatorScript: Sendable, Hashable {
    /// One command, the 1-based line it came from and that line's text (trimmed), echoed when it runs.
    public struct Step: Sendable, Hashable {
        public var line: Int
        public var command: EmulatorCommand
        public var text: String

        public init(line: Int, command: EmulatorCommand, text: String) {
            self.line = line
            self.command = command
            self.text = text
        }
    }

    /// The largest script read: 1 MiB of text.
    public static let maxBytes = 1 << 20

    public var steps: [Step]

    public init(steps: [Step]) {
        self.steps = steps
    }

    /// Parses a whole script; the first bad line stops it with its line number.
    public static func parse(_ text: String) throws(EmulatorCommandError) -> EmulatorScript {
        guard text.utf8.count <= maxBytes else {
            throw EmulatorCommandError("the script has \(text.utf8.count) bytes; the limit is \(maxBytes)")
        }
        var steps: [Step] = []
        // Split the scalars, not the Characters: "\r\n" is one Character and would not split on "\n".
        for (index, rawLine) in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var scalars = String.UnicodeScalarView(rawLine)
            if scalars.last == "\r" { scalars.removeLast() }
            let line = String(scalars)
            do {
                if let command = try EmulatorCommand.parse(line) {
                    steps.append(Step(line: index + 1, command: command, text: line.trimmingWhitespace))
                }
            } catch {
                throw EmulatorCommandError(line: index + 1, error.text)
            }
        }
        return EmulatorScript(steps: steps)
    }
}

extension EmulatorCommand {
    /// The `help` text of the browse shell.
    public static let helpText: [String] = [
        "commands:",
        "  open <n|id>        browse into row n (or the item with that id; id:42 for a numeric id)",
        "  back               back to the previous list",
        "  page <n>           page n (1, 2, ...) of the current list",
        "  search <query>     search",
        "  play <n|id>        play a playable row or item id",
        "  voice <query>      play from search (empty query: play something)",
        "  art <n|id|key>     fetch a row's cover (or an artwork key)",
        "  np                 now playing, with the audio heard (packets, underflows, lead, tone)",
        "  play | pause | stop | next | prev",
        "  seek <seconds>     seek to a position",
        "  skip <i>           play queue entry i (1, 2, ...)",
        "  rate <x>           playback rate, 1 = normal",
        "  repeat off|one|all, shuffle on|off",
        "  fwd, back15 (rew)  jump forward / back (the server's default, 15 s)",
        "  sleep <seconds>|eot|cancel   sleep timer",
        "  action <n|name> [key=value ...]   a custom action from the now-playing view",
        "  volume up|down|mute|unmute|<0-100>   the remote device's volume (when the server declares one)",
        "  key <name|code>    a key on the AAP input channel (playpause, stop, next, previous, play, pause,",
        "                     volup, voldown, mute)",
        "  wait <ms>          pause (scripts)",
        "  expect <text>      fail unless <text> shows up in the output (scripts)",
        "  help, quit",
        "",
        "list rows: number, marks, title · subtitle, duration, progress, [id]",
        "  ▶  playable (play <n>)     ›  browsable (open <n>)     E  explicit",
        "  -- Group --  a section header of the list; \"more\" in the summary: page <n> for the rest",
        "interactive: Up/Down walk the history, Left/Right/Home/End/Backspace edit, Ctrl-D quits",
    ]
}
