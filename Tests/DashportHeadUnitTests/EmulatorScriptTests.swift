import DashportEmulator
import DashportHeadUnit
import DashportMessages
import Testing

/// The browse commands and `--script` files.
@Suite struct EmulatorScriptTests {
    @Test(arguments: [
        ("open 3", EmulatorCommand.open(.row(3))),
        ("open albums", .open(.id("albums"))),
        ("open id:42", .open(.id("42"))),
        ("  OPEN   Kind of Blue ", .open(.id("Kind of Blue"))),
        ("back", .back),
        ("page 2", .page(2)),
        ("search miles davis", .search("miles davis")),
        ("play", .transport(.play(DashportMedia.Empty()))),
        ("play 1", .playItem(.row(1))),
        ("play t1", .playItem(.id("t1"))),
        ("voice", .playFromSearch("")),
        ("voice some jazz", .playFromSearch("some jazz")),
        ("art 2", .artwork(.row(2))),
        ("np", .nowPlaying),
        ("pause", .transport(.pause(DashportMedia.Empty()))),
        ("stop", .transport(.stop(DashportMedia.Empty()))),
        ("seek 90.5", .transport(.seekToMs(90_500))),
        ("next", .transport(.skipToNext(DashportMedia.Empty()))),
        ("prev", .transport(.skipToPrevious(DashportMedia.Empty()))),
        ("skip 3", .transport(.skipToQueueItem(2))),
        ("rate 1.5", .transport(.setRate(1.5))),
        ("repeat all", .transport(.setRepeatMode(.all))),
        ("repeat one", .transport(.setRepeatMode(.one))),
        ("shuffle on", .transport(.setShuffle(true))),
        ("shuffle off", .transport(.setShuffle(false))),
        ("fwd", .transport(.jumpForward(DashportMedia.Jump()))),
        ("back15", .transport(.jumpBack(DashportMedia.Jump()))),
        ("rew", .transport(.jumpBack(DashportMedia.Jump()))),
        ("seek 1e300", .transport(.seekToMs(Int64.max))),
        ("sleep 600", .transport(.setSleepTimer(DashportMedia.SleepTimer(until: .durationMs(600_000))))),
        ("sleep eot", .transport(.setSleepTimer(DashportMedia.SleepTimer(until: .endOfTrack(DashportMedia.Empty()))))),
        ("sleep cancel", .transport(.cancelSleepTimer(DashportMedia.Empty()))),
        ("key next", .key(87)),
        ("key 85", .key(85)),
        ("wait 250", .wait(milliseconds: 250)),
        ("expect ▶ So What", .expect("▶ So What")),
        ("help", .help),
        ("quit", .quit),
    ])
    func parsesEachCommand(line: String, command: EmulatorCommand) throws {
        #expect(try EmulatorCommand.parse(line) == command)
    }

    @Test func blankLinesAndCommentsAreNoCommand() throws {
        #expect(try EmulatorCommand.parse("") == nil)
        #expect(try EmulatorCommand.parse("   \t") == nil)
        #expect(try EmulatorCommand.parse("  # open 1") == nil)
    }

    @Test(arguments: [
        ("dance", "unknown command \"dance\"; type help"),
        ("open", "open needs a row number or an id"),
        ("page 0", "page: pages start at 1"),
        ("page two", "page: \"two\" is not a page number (1, 2, ...)"),
        ("seek -3", "seek: the position must be 0 or more seconds"),
        ("skip 0", "skip: queue positions start at 1"),
        ("repeat twice", "repeat: say off, one or all"),
        ("shuffle maybe", "shuffle: say on or off"),
        ("sleep soon", "sleep: say a number of seconds, eot or cancel"),
        ("key volume", "key: say playpause, stop, next, previous, play, pause, volup, voldown, mute or a keycode"),
        ("wait -1", "wait: milliseconds must be between 0 and 3600000"),
        ("wait 3600001", "wait: milliseconds must be between 0 and 3600000"),
    ])
    func rejectsMistakesWithAClearMessage(line: String, message: String) {
        #expect(throws: EmulatorCommandError(message)) { try EmulatorCommand.parse(line) }
    }

    @Test func scriptKeepsLineNumbersAndSkipsComments() throws {
        let text = "# a test\r\nopen 1\r\n\r\n   # indented comment\nwait 100\nexpect So What\nquit"
        let script = try EmulatorScript.parse(text)
        #expect(
            script.steps == [
                EmulatorScript.Step(line: 2, command: .open(.row(1)), text: "open 1"),
                EmulatorScript.Step(line: 5, command: .wait(milliseconds: 100), text: "wait 100"),
                EmulatorScript.Step(line: 6, command: .expect("So What"), text: "expect So What"),
                EmulatorScript.Step(line: 7, command: .quit, text: "quit"),
            ])
    }

    @Test func aBadScriptLineNamesItsNumber() {
        #expect(throws: EmulatorCommandError(line: 3, "unknown command \"opne\"; type help")) {
            try EmulatorScript.parse("open 1\n# fine\nopne 2\n")
        }
    }

    @Test func oversizedScriptsAreRefused() {
        let text = String(repeating: "np\n", count: EmulatorScript.maxBytes / 3 + 1)
        #expect(throws: EmulatorCommandError("the script has \(text.utf8.count) bytes; the limit is \(EmulatorScript.maxBytes)")) {
            try EmulatorScript.parse(text)
        }
    }
}
