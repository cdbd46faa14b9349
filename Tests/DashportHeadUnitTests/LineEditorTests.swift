// Tests/DashportHeadUnitTests/LineEditorTests.swift - the interactive shell's line editing and
// history: keys as a terminal sends them, what is drawn and entered.

import DashportEmulator
import Testing

@Suite struct LineEditorTests {
    static let up = Array("\u{1B}[A".utf8)
    static let down = Array("\u{1B}[B".utf8)
    static let left = Array("\u{1B}[D".utf8)

    /// The lines entered after feeding `bytes`.
    static func submitted(_ editor: inout LineEditor, _ bytes: [UInt8]) -> [String] {
        editor.feed(bytes).compactMap { if case .submit(let line) = $0 { line } else { nil } }
    }

    @Test func upRecallsTheLastLineInsteadOfTypingAnEscape() {
        var editor = LineEditor()
        #expect(Self.submitted(&editor, Array("open 2\r".utf8)) == ["open 2"])
        #expect(Self.submitted(&editor, Array("np\r".utf8)) == ["np"])
        let drawn = editor.feed(Self.up)
        #expect(drawn == [.redraw(text: "np", cursor: 2)])
        #expect(editor.feed(Self.up) == [.redraw(text: "open 2", cursor: 6)])
        #expect(editor.feed(Self.up) == [.bell], "nothing before the first line")
        #expect(Self.submitted(&editor, Array("\r".utf8)) == ["open 2"])
        #expect(editor.history == ["open 2", "np", "open 2"])
    }

    @Test func downReturnsToTheLineBeingTyped() {
        var editor = LineEditor()
        _ = editor.feed(Array("back\rpla".utf8))
        #expect(editor.feed(Self.up) == [.redraw(text: "back", cursor: 4)])
        #expect(editor.feed(Self.down) == [.redraw(text: "pla", cursor: 3)])
        #expect(Self.submitted(&editor, Array("y 1\r".utf8)) == ["play 1"])
    }

    @Test func editingInTheMiddleOfTheLine() {
        var editor = LineEditor()
        // "pge 2", Left ×4 → after "p", insert "a"; Home, Delete; End, Backspace; "3".
        var keys = Array("pge 2".utf8) + Self.left + Self.left + Self.left + Self.left + Array("a".utf8)
        #expect(editor.feed(keys).last == .redraw(text: "page 2", cursor: 2))
        keys = Array("\u{1B}[H\u{1B}[3~".utf8)
        #expect(editor.feed(keys).last == .redraw(text: "age 2", cursor: 0))
        keys = [0x05, 0x7F] + Array("3".utf8) + [0x01] + Array("p".utf8)
        #expect(editor.feed(keys).last == .redraw(text: "page 3", cursor: 1))
        #expect(Self.submitted(&editor, [0x0D]) == ["page 3"])
    }

    @Test func unknownSequencesAndUTF8AreHandledWhole() {
        var editor = LineEditor()
        // F5 (ESC [ 1 5 ~) and Alt-x insert nothing; "é" and "🎵" arrive as several bytes each.
        #expect(Self.submitted(&editor, Array("\u{1B}[15~\u{1B}xsearch é🎵\r".utf8)) == ["search é🎵"])
        #expect(editor.feed([0xFF, 0x41]) == [.redraw(text: "A", cursor: 1)], "an invalid byte is dropped")
    }

    @Test func ctrlDAndCtrlCEndInputOnlyOnAnEmptyLine() {
        var editor = LineEditor()
        #expect(editor.feed(Array("ab".utf8) + [0x03]).last == .redraw(text: "", cursor: 0), "Ctrl-C drops the line")
        #expect(editor.feed([0x03]) == [.endOfInput])
        #expect(editor.feed(Array("x".utf8) + [0x02, 0x04]).last == .redraw(text: "", cursor: 0), "Ctrl-D deletes under the cursor")
        #expect(editor.feed([0x04]) == [.endOfInput])
    }

    @Test func aLineAndTheHistoryAreBounded() {
        var editor = LineEditor()
        let actions = editor.feed([UInt8](repeating: UInt8(ascii: "a"), count: LineEditor.maxLength + 3))
        #expect(actions.suffix(3) == [.bell, .bell, .bell])
        _ = editor.feed([0x0D])
        for index in 0..<(LineEditor.maxHistory + 10) { _ = editor.feed(Array("l\(index)\r".utf8)) }
        #expect(editor.history.count == LineEditor.maxHistory)
        #expect(editor.history.last == "l\(LineEditor.maxHistory + 9)")
    }
}
