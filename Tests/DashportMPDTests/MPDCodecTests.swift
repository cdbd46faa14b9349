import Testing
import DashportMPD

/// The codec against byte-exact answers as mpd 0.23 writes them.
@Suite struct MPDCodecTests {
    static let greeting = Array("OK MPD 0.23.5\n".utf8)

    func parse(_ text: String, limits: MPDLimits = MPDLimits()) throws(MPDProtocolError) -> [MPDEvent] {
        var parser = MPDResponseParser(limits: limits)
        return try parser.feed(Self.greeting + Array(text.utf8))
    }

    @Test func greetingAndFieldsInOrder() throws {
        let events = try parse("file: Album/01 One.flac\nTitle: One\nTrack: 1\nOK\n")
        #expect(events.first == .greeting(MPDVersion(0, 23, 5)))
        let response = MPDResponse(fields: [MPDField("file", "Album/01 One.flac"), MPDField("Title", "One"), MPDField("Track", "1")])
        #expect(events.dropFirst().elementsEqual([.response(response)]))
        #expect(response["Title"] == "One")
        #expect(response.records(startingAt: ["file"]).count == 1)
    }

    @Test func aValueKeepsColonsAndSpaces() throws {
        let events = try parse("Title: Intro: Part 1 \nOK\n")
        #expect(events.last == .response(MPDResponse(fields: [MPDField("Title", "Intro: Part 1 ")])))
    }

    @Test func ackNamesCodeIndexCommandAndMessage() throws {
        let events = try parse("ACK [50@2] {albumart} No file exists\n")
        #expect(events.last == .ack(MPDAck(code: 50, index: 2, command: "albumart", message: "No file exists")))
        if case .ack(let ack) = events.last { #expect(ack.known == .noExist) }
        let empty = try parse("ACK [5@0] {} unknown command \"bogus\"\n")
        #expect(empty.last == .ack(MPDAck(code: 5, index: 0, command: "", message: "unknown command \"bogus\"")))
    }

    @Test func binaryChunkWithNewlinesInside() throws {
        // A chunk may hold any bytes, newlines and "OK" included: only its length ends it.
        var parser = MPDResponseParser()
        let bytes =
            Self.greeting + Array("size: 6\ntype: image/jpeg\nbinary: 6\n".utf8) + [0xFF, 0x0A, 0x4F, 0x4B, 0x0A, 0x00]
            + Array("\nOK\n".utf8)
        let events = try parser.feed(bytes)
        guard case .response(let response) = events.last else {
            Issue.record("no answer")
            return
        }
        #expect(response.binary == [0xFF, 0x0A, 0x4F, 0x4B, 0x0A, 0x00])
        #expect(response["type"] == "image/jpeg" && response["size"] == "6")
    }

    @Test func splitsAnywhereGiveTheSameEvents() throws {
        let text = "changed: player\nchanged: mixer\nOK\nvolume: 70\nbinary: 2\nab\nOK\n"
        let bytes = Self.greeting + Array(text.utf8)
        var whole = MPDResponseParser()
        let expected = try whole.feed(bytes)
        for cut in 0...bytes.count {
            var parser = MPDResponseParser()
            let events = try parser.feed(bytes[..<cut]) + parser.feed(bytes[cut...])
            #expect(events == expected, "cut at \(cut)")
        }
        #expect(expected.count == 3)
    }

    @Test func commandListBoundaries() throws {
        let events = try parse("file: a\nlist_OK\nlist_OK\nfile: b\nlist_OK\nOK\n")
        #expect(events.last == .response(MPDResponse(fields: [MPDField("file", "a"), MPDField("file", "b")], listBoundaries: [1, 1, 2])))
    }

    @Test func boundsAreErrorsThatNameThem() {
        let tight = MPDLimits(maxLineBytes: 16, maxResponseBytes: 40, maxBinaryBytes: 4)
        #expect(throws: MPDProtocolError.lineTooLong(limit: 16)) { try parse("Title: 0123456789abcdef\nOK\n", limits: tight) }
        // Without a newline yet: refused as soon as the line is past the cap, not buffered.
        #expect(throws: MPDProtocolError.lineTooLong(limit: 16)) { try parse("Title: 0123456789abcdef", limits: tight) }
        #expect(throws: MPDProtocolError.responseTooLarge(limit: 40)) {
            try parse("a: 0123456789\nb: 0123456789\nc: 0123456789\nOK\n", limits: tight)
        }
        #expect(throws: MPDProtocolError.binaryTooLarge(size: 5, limit: 4)) { try parse("binary: 5\n", limits: tight) }
        #expect(throws: MPDProtocolError.missingBinaryTerminator) { try parse("binary: 2\nabX") }
        #expect(throws: MPDProtocolError.badBinaryLength("-1")) { try parse("binary: -1\n") }
        #expect(throws: MPDProtocolError.malformedLine("garbage")) { try parse("garbage\n") }
        #expect(throws: MPDProtocolError.badAck("ACK nonsense")) { try parse("ACK nonsense\n") }
    }

    @Test func notMPDIsRefusedAtTheGreeting() {
        var parser = MPDResponseParser()
        #expect(throws: MPDProtocolError.badGreeting("SSH-2.0-OpenSSH_9.2")) { try parser.feed(Array("SSH-2.0-OpenSSH_9.2\n".utf8)) }
        // Once failed, it stays failed.
        #expect(throws: MPDProtocolError.badGreeting("SSH-2.0-OpenSSH_9.2")) { try parser.feed(Array("OK\n".utf8)) }
        var old = MPDResponseParser()
        #expect((try? old.feed(Array("OK MPD 0.19\n".utf8))) == [.greeting(MPDVersion(0, 19, 0))])
    }

    @Test func commandsAreQuotedAndEscaped() throws {
        #expect(try MPDCommand("status").encoded() == Array("status\n".utf8))
        #expect(try MPDCommand("find", "album", #"Say "Hi" \ Bye"#).encoded() == Array(#"find "album" "Say \"Hi\" \\ Bye""#.utf8 + [0x0A]))
        #expect(try MPDCommand("seekcur", "+5").encoded() == Array("seekcur \"+5\"\n".utf8))
        #expect(throws: MPDProtocolError.argumentNotSendable("a\nplay")) { try MPDCommand("find", "a\nplay").encoded() }
        #expect(throws: MPDProtocolError.badCommand("play; stop")) { try MPDCommand("play; stop").encoded() }
        let long = String(repeating: "x", count: MPDCommand.maxLineBytes)
        #expect(throws: MPDProtocolError.commandTooLong("find", MPDCommand.maxLineBytes + 8)) { try MPDCommand("find", long).encoded() }
        #expect(
            try MPDCommand.list([MPDCommand("clear"), MPDCommand("add", "A/1.flac")])
                == Array("command_list_ok_begin\nclear\nadd \"A/1.flac\"\ncommand_list_end\n".utf8))
        #expect(MPDCommand.noidle == Array("noidle\n".utf8))
    }

    @Test func addressesParse() throws {
        #expect(try MPDAddress.parse("/run/mpd/socket") == .unix("/run/mpd/socket"))
        #expect(try MPDAddress.parse("127.0.0.1:6601").description == "127.0.0.1:6601")
        #expect(try MPDAddress.parse("localhost").description == "127.0.0.1:6600")
        #expect(throws: MPDAddressError.self) { try MPDAddress.parse("music.local:6600") }
        #expect(MPDVersion(parsing: "0.23.5") == MPDVersion(0, 23, 5))
        #expect(MPDVersion(parsing: "0.x") == nil)
        #expect(MPDVersion(0, 20, 9) < MPDClient.minimumVersion)
    }
}
