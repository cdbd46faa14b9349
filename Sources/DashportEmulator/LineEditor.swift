// Sources/DashportEmulator/LineEditor.swift - the interactive shell's line editing and history,
// sans-IO: bytes typed in, what to draw and which line was entered out.

/// A small line editor for `dashport-hu browse` on a terminal (raw mode): Left/Right, Home/End
/// (and Ctrl-A/Ctrl-E), Backspace/Delete, Ctrl-U (clear), Up/Down through the history, Enter,
/// Ctrl-D (end of input on an empty line), Ctrl-C (drop the line; end of input on an empty one).
/// Escape sequences it does not know are swallowed whole, never inserted (Up must not type `^[[A`).
/// Bounded: a line holds at most ``maxLength`` characters, the history ``maxHistory`` lines.
public struct LineEditor: Sendable {
    public static let maxLength = 4096
    public static let maxHistory = 500

    public enum Action: Sendable, Hashable {
        /// Draw the line: `text` with the cursor before character `cursor`.
        case redraw(text: String, cursor: Int)
        /// The line entered (Enter); the editor starts an empty line.
        case submit(String)
        case endOfInput
        /// Nothing to do for that key (past the end of the history, a full line).
        case bell
    }

    public private(set) var history: [String] = []
    private var line: [Character] = []
    private var cursor = 0
    /// Where Up/Down stand in the history (`history.count`: the line being typed).
    private var recall = 0
    /// The line being typed when Up first left it.
    private var draft: [Character] = []
    private var escape: [UInt8] = []
    private var utf8: [UInt8] = []

    public init() {}

    /// Feeds typed bytes; returns what to do, in order.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Action] {
        var actions: [Action] = []
        for byte in bytes { if let action = feed(byte) { actions.append(action) } }
        return actions
    }

    private var drawn: Action { .redraw(text: String(line), cursor: cursor) }

    private mutating func feed(_ byte: UInt8) -> Action? {
        if !escape.isEmpty { return escapeByte(byte) }
        if !utf8.isEmpty || byte >= 0x80 { return utf8Byte(byte) }
        switch byte {
        case 0x1B:
            escape = [byte]
            return nil
        case 0x0D, 0x0A:
            let text = String(line)
            if !text.allSatisfy(\.isWhitespace), history.last != text {
                history.append(text)
                if history.count > Self.maxHistory { history.removeFirst(history.count - Self.maxHistory) }
            }
            (line, cursor, recall, draft) = ([], 0, history.count, [])
            return .submit(text)
        case 0x04:  // Ctrl-D: end of input on an empty line, else delete under the cursor
            if line.isEmpty { return .endOfInput }
            return delete()
        case 0x03:  // Ctrl-C
            if line.isEmpty { return .endOfInput }
            (line, cursor, recall) = ([], 0, history.count)
            return drawn
        case 0x7F, 0x08:
            guard cursor > 0 else { return .bell }
            cursor -= 1
            line.remove(at: cursor)
            return drawn
        case 0x01: return move(to: 0)
        case 0x05: return move(to: line.count)
        case 0x02: return move(to: cursor - 1)
        case 0x06: return move(to: cursor + 1)
        case 0x15:
            (line, cursor) = ([], 0)
            return drawn
        case 0x10: return recallLine(by: -1)
        case 0x0E: return recallLine(by: 1)
        case 0x20..<0x7F: return insert(Character(Unicode.Scalar(byte)))
        default: return nil  // other control characters: ignored
        }
    }

    private mutating func insert(_ character: Character) -> Action {
        guard line.count < Self.maxLength else { return .bell }
        line.insert(character, at: cursor)
        cursor += 1
        return drawn
    }

    private mutating func delete() -> Action {
        guard cursor < line.count else { return .bell }
        line.remove(at: cursor)
        return drawn
    }

    private mutating func move(to position: Int) -> Action {
        guard (0...line.count).contains(position) else { return .bell }
        cursor = position
        return drawn
    }

    private mutating func recallLine(by step: Int) -> Action {
        let target = recall + step
        guard (0...history.count).contains(target) else { return .bell }
        if recall == history.count { draft = line }
        recall = target
        line = target == history.count ? draft : Array(history[target])
        cursor = line.count
        return drawn
    }

    /// `ESC [ A`-style sequences (and `ESC O A`): parameters, then one final byte.
    private mutating func escapeByte(_ byte: UInt8) -> Action? {
        escape.append(byte)
        if escape.count == 2 {
            guard byte == UInt8(ascii: "[") || byte == UInt8(ascii: "O") else {
                escape = []  // Alt-<key>: nothing of ours
                return nil
            }
            return nil
        }
        // Parameter and intermediate bytes go on; a final byte (0x40...0x7E) ends the sequence.
        guard (0x40...0x7E).contains(byte) || escape.count > 16 else { return nil }
        let sequence = escape
        escape = []
        switch (sequence[1], byte, sequence.count) {
        case (_, UInt8(ascii: "A"), _): return recallLine(by: -1)
        case (_, UInt8(ascii: "B"), _): return recallLine(by: 1)
        case (_, UInt8(ascii: "C"), _): return move(to: cursor + 1)
        case (_, UInt8(ascii: "D"), _): return move(to: cursor - 1)
        case (_, UInt8(ascii: "H"), _): return move(to: 0)
        case (_, UInt8(ascii: "F"), _): return move(to: line.count)
        case (UInt8(ascii: "["), UInt8(ascii: "~"), 4):
            switch sequence[2] {
            case UInt8(ascii: "1"), UInt8(ascii: "7"): return move(to: 0)
            case UInt8(ascii: "4"), UInt8(ascii: "8"): return move(to: line.count)
            case UInt8(ascii: "3"): return delete()
            default: return nil
            }
        default: return nil
        }
    }

    /// A character of several UTF-8 bytes, inserted once whole; an invalid sequence is dropped.
    private mutating func utf8Byte(_ byte: UInt8) -> Action? {
        utf8.append(byte)
        let expected: Int =
            switch utf8[0] {
            case 0xC2...0xDF: 2
            case 0xE0...0xEF: 3
            case 0xF0...0xF4: 4
            default: 0
            }
        guard expected > 0, utf8.count == 1 || byte & 0xC0 == 0x80 else {
            utf8 = []
            return nil
        }
        guard utf8.count == expected else { return nil }
        defer { utf8 = [] }
        guard let text = String(validating: utf8, as: UTF8.self), let character = text.first else { return nil }
        return insert(character)
    }
}
