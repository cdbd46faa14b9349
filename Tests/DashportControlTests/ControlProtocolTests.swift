import Testing
import DashportControl
import DashportSession

/// The control protocol without a socket: requests, words, framing, answers.
@Suite struct ControlProtocolTests {
    static func parse(_ line: String) throws(ControlError) -> ControlRequest { try ControlRequest.parse(Array(line.utf8)) }

    @Test(arguments: [
        ("status", ControlRequest.status),
        ("cars", .cars),
        ("  cars \t", .cars),
        ("help", .help),
        ("reload", .reload),
        ("invalidate tab-albums", .invalidate(parentId: "tab-albums")),
        ("invalidate --all", .invalidate(parentId: nil)),
        (#"invalidate "album with \"quotes\" and \\ spaces""#, .invalidate(parentId: #"album with "quotes" and \ spaces"#)),
        ("session", .showSession),
        ("session play", .session(.play)),
        ("session toggle", .session(.playPause)),
        ("session prev", .session(.skipToPrevious)),
        ("session seek 61.5", .session(.seekTo(ms: 61_500))),
        ("session skip 1", .session(.skipToQueueItem(0))),
        ("session rate 1.5", .session(.setRate(1.5))),
        ("session repeat one", .session(.setRepeatMode(.one))),
        ("session shuffle on", .session(.setShuffle(true))),
        ("session sleep 30", .session(.setSleepTimer(.duration(ms: 1_800_000)))),
        ("session sleep end-of-track", .session(.setSleepTimer(.endOfTrack))),
        ("session sleep off", .session(.cancelSleepTimer)),
        ("session play-id nd-2", .session(.playFromMediaId("nd-2"))),
        ("session volume 40", .session(.setDeviceVolume(0.4))),
        ("session volume up", .session(.adjustDeviceVolume(steps: 1))),
        ("session volume down", .session(.adjustDeviceVolume(steps: -1))),
        ("session volume mute", .session(.setDeviceMuted(true))),
        ("session volume unmute", .session(.setDeviceMuted(false))),
        ("status\r", .status),
    ])
    func requestsParse(_ line: String, _ expected: ControlRequest) throws {
        #expect(try Self.parse(line) == expected)
    }

    @Test(arguments: [
        ("", "empty request; try 'help'"),
        ("launch", "unknown command 'launch'; try 'help'"),
        ("status now", "usage: status"),
        ("invalidate", "usage: invalidate PARENT-ID | invalidate --all"),
        (#"invalidate """#, "invalidate: the parent id is empty"),
        ("session seek -1", "session seek: '-1' is not a number of seconds (0 or more)"),
        ("session seek nan", "session seek: 'nan' is not a number of seconds (0 or more)"),
        ("session skip 0", "session skip: '0' is not a queue position (1 = first)"),
        ("session rate 17", "session rate: '17' is not a speed above 0 and at most 16"),
        ("session repeat twice", "session repeat: 'twice' is not off, one or all"),
        ("session sleep 0", "session sleep: '0' is not minutes (above 0, at most 1440), end-of-track or off"),
        ("session play now", "usage: session play (no arguments)"),
        ("session volume 101", "session volume: '101' is not a percentage (0 to 100), up, down, mute or unmute"),
        ("session volume loud", "session volume: 'loud' is not a percentage (0 to 100), up, down, mute or unmute"),
        (#"invalidate "open"#, "a quoted word is not closed"),
        (#"invalidate "a\nb""#, "unknown escape '\\n' in a quoted word (only \\\" and \\\\)"),
        ("cars\u{1B}[2J", "request contains a control character (U+1B)"),
        ("a b c d e f g h i j", "too many words in the request"),
    ])
    func badRequestsSayWhatIsWrong(_ line: String, _ message: String) {
        #expect(throws: ControlError(message)) { try Self.parse(line) }
    }

    @Test func wordsQuoteOnlyWhenTheyMust() throws {
        #expect(ControlWords.quoted("tab-albums") == "tab-albums")
        #expect(ControlWords.quoted("") == #""""#)
        #expect(ControlWords.quoted(#"a "b" \c"#) == #""a \"b\" \\c""#)
        #expect(ControlWords.quoted("line\nbreak") == #""line?break""#)
        #expect(ControlWords.quoted("tab\there") == "\"tab\there\"")
        for word in ["plain", "with space", #"q"uote"#, #"back\slash"#, "ünï cödé", "=", "--all", "tab\t", "a[ b&\t\t\t"] {
            #expect(try ControlWords.split(Array("x \(ControlWords.quoted(word))".utf8)) == ["x", word])
        }
        #expect(ControlWords.fields(["a": "1", "b": "two words"]) == #"a=1 b="two words""#)
    }

    @Test func theLineReaderIsBounded() throws {
        var reader = ControlLineReader(maxLineBytes: 8, maxPendingLines: 2)
        try reader.append(Array("abc\nde".utf8))
        #expect(reader.next() == Array("abc".utf8))
        #expect(reader.next() == nil)
        try reader.append(Array("f\n".utf8))
        #expect(reader.next() == Array("def".utf8))
        #expect(throws: ControlError("request longer than 7 bytes")) { try reader.append(Array("12345678".utf8)) }
        var queued = ControlLineReader(maxLineBytes: 8, maxPendingLines: 2)
        #expect(throws: ControlError("more than 2 requests sent before their answers")) { try queued.append(Array("a\nb\nc\n".utf8)) }
    }

    /// The reader takes contiguous bytes a line at a time: at the cap's edge (a line of
    /// `maxLineBytes - 1` bytes passes, one more fails), with lines and the cap split anywhere, and
    /// from a collection without contiguous storage, it does what the rule says byte by byte.
    @Test func theLineReaderTakesAnySplitLikeByteByByte() throws {
        let inputs = ["1234567\n", "12345678", "1234567", "ab\n1234567\ncd", "\n\n\nx", "a\nb\nc\n", "123\n4567890\n"]
        for text in inputs.map({ Array($0.utf8) }) {
            for cut in 0...text.count {
                // The rule, a byte at a time: a line feed ends a line (if fewer than 2 wait), any
                // other byte joins it (if it then stays under 8 bytes with its line feed).
                var expected: [[UInt8]] = []
                var expectedError: ControlError?
                var partial: [UInt8] = []
                for value in text {
                    if value == 0x0A {
                        guard expected.count < 2 else {
                            expectedError = ControlError("more than 2 requests sent before their answers")
                            break
                        }
                        expected.append(partial)
                        partial = []
                    } else {
                        guard partial.count + 1 < 8 else {
                            expectedError = ControlError("request longer than 7 bytes")
                            break
                        }
                        partial.append(value)
                    }
                }

                for contiguous in [true, false] {
                    var reader = ControlLineReader(maxLineBytes: 8, maxPendingLines: 2)
                    var error: ControlError?
                    do {
                        if contiguous {
                            try reader.append(text[..<cut])
                            try reader.append(text[cut...])
                        } else {
                            try reader.append(text[..<cut].lazy.map { $0 })
                            try reader.append(text[cut...].lazy.map { $0 })
                        }
                    } catch let thrown { error = thrown }
                    var lines: [[UInt8]] = []
                    while let line = reader.next() { lines.append(line) }
                    #expect(error == expectedError && lines == expected, "\(String(decoding: text, as: UTF8.self)) cut at \(cut)")
                    #expect(error != nil || reader.partialCount == partial.count)
                }
            }
        }
    }

    @Test func answersRoundTripInAnySplit() throws {
        let answers: [ControlResponse] = [.ok([]), .ok(["id=1 kind=dashport", "", "x"]), .error("unknown command 'x'")]
        for answer in answers {
            let bytes = answer.encoded
            for cut in 0...bytes.count {
                var reader = ControlResponseReader()
                let first = try reader.append(bytes[..<cut])
                let second = try reader.append(bytes[cut...])
                #expect((first ?? second) == answer)
                #expect(first == nil || cut == bytes.count)
            }
        }
        #expect(ControlResponse.ok(["a\nb"]).encoded == Array("ok 1\na b\n".utf8))
        #expect(ControlResponse.ok(["é\r\nx", "", "\r"]).encoded == Array("ok 3\né  x\n\n \n".utf8))
        #expect(ControlResponse.error("🎵\nü\r").encoded == Array("error 🎵 ü \n".utf8))
        // A text that starts with a combining mark still reads back (found by FuzzControl).
        var combining = ControlResponseReader()
        #expect(try combining.append(ControlResponse.error("\u{06D9}llse").encoded) == .error("\u{06D9}llse"))
        var reader = ControlResponseReader()
        #expect(throws: ControlError("not a dashport control answer: 'HTTP/1.1 200 OK'")) {
            try reader.append(Array("HTTP/1.1 200 OK\n".utf8))
        }
    }
}
