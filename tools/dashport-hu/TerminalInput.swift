import DashportEmulator
import Foundation
import Synchronization

/// Typed lines from a terminal with editing and history (``LineEditor``): standard input in raw
/// mode (no echo, no line buffering, no signals: Ctrl-C is the editor's), read on a thread of its
/// own; the terminal's settings are put back at the end of input and by ``restore()``.
enum TerminalInput {
    /// The settings before raw mode, to put back (nil while the terminal is not raw).
    private static let saved = Mutex<termios?>(nil)

    /// Lines typed at the prompt `prompt`, until end of input (Ctrl-D or Ctrl-C on an empty line).
    /// Nil when raw mode cannot be set (then the caller reads plain lines).
    static func lines(prompt: String) -> AsyncStream<String>? {
        var settings = termios()
        guard tcgetattr(0, &settings) == 0 else { return nil }
        var raw = settings
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        guard tcsetattr(0, TCSANOW, &raw) == 0 else { return nil }
        saved.withLock { $0 = settings }
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let reader = Thread {
            var editor = LineEditor()
            var buffer = [UInt8](repeating: 0, count: 256)
            reading: while true {
                let count = read(0, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                for action in editor.feed(buffer[..<count]) {
                    switch action {
                    case .redraw(let text, let cursor):
                        // Back to the start of the line, prompt and text, clear the rest, cursor in place.
                        let back = text.count - cursor
                        Console.raw("\r" + prompt + text + "\u{1B}[K" + (back > 0 ? "\u{1B}[\(back)D" : ""))
                    case .submit(let line):
                        Console.raw("\r\n")
                        continuation.yield(line)
                    case .endOfInput:
                        Console.raw("\r\n")
                        break reading
                    case .bell:
                        Console.raw("\u{07}")
                    }
                }
            }
            restore()
            continuation.finish()
        }
        reader.name = "dashport-hu-terminal"
        reader.start()
        return stream
    }

    /// Whether the terminal is in raw mode now.
    static var isRaw: Bool { saved.withLock { $0 != nil } }

    /// Puts the terminal back as it was (idempotent; called on every way out of the shell).
    static func restore() {
        saved.withLock { settings in
            guard var original = settings else { return }
            tcsetattr(0, TCSANOW, &original)
            settings = nil
        }
    }
}
