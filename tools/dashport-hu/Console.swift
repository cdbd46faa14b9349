import Foundation

/// Standard output and error, one `write(2)` per line, unbuffered so a reader of a pipe sees each
/// line as it happens; and standard input as lines read on their own thread.
enum Console {
    static func out(_ line: String) { write(line + "\n", to: 1) }

    static func err(_ line: String) { write(line + "\n", to: 2) }

    /// Whether standard input is a terminal (a person typing), so a prompt helps.
    static var inputIsTerminal: Bool { isatty(0) == 1 }

    static let promptText = "dashport-hu> "

    /// The interactive prompt, without a newline.
    static func prompt() { write(promptText, to: 1) }

    /// Text as is (terminal control sequences of the line editor), on standard output.
    static func raw(_ text: String) { write(text, to: 1) }

    private static func write(_ text: String, to fd: Int32) {
        // In raw mode the terminal does not turn "\n" into "\r\n"; a line printed meanwhile (a
        // screen, a push) must still start at the left edge.
        let text = TerminalInput.isRaw && fd == 1 && !text.hasPrefix("\r") ? text.replacingOccurrences(of: "\n", with: "\r\n") : text
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                // baseAddress is non-nil whenever count > 0, which the loop condition ensures.
                let result = Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if result < 0 {
                    if errno == EINTR { continue }
                    return  // nowhere left to report it
                }
                offset += result
            }
        }
    }

    /// Lines typed on standard input, until end of input. A dedicated thread does the blocking reads,
    /// so no task of the cooperative pool ever blocks.
    static func inputLines() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let reader = Thread {
            while let line = readLine(strippingNewline: true) {
                continuation.yield(line)
            }
            continuation.finish()
        }
        reader.name = "dashport-hu-stdin"
        reader.start()
        return stream
    }

    /// A script file's text, refusing files over the script size cap before reading them.
    static func readScript(_ path: String, limit: Int) throws(UsageError) -> String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let size = (attributes?[.size] as? NSNumber)?.intValue else {
            throw UsageError("--script: cannot read \(path)")
        }
        guard size <= limit else { throw UsageError("--script: \(path) has \(size) bytes; the limit is \(limit)") }
        guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("--script: cannot read \(path)") }
        return String(decoding: data, as: UTF8.self)
    }
}
