// Sources/DashportControl/ControlLines.swift - framing: bytes in, whole lines out, bounded.

/// Collects bytes from a control connection and hands out whole lines (without the line feed).
///
/// Bounded like every peer input: a line longer than `maxLineBytes` (terminator included) is an
/// error (the server answers it and closes the connection), and at most `maxPendingLines`
/// complete lines may wait unanswered.
public struct ControlLineReader: Sendable {
    public let maxLineBytes: Int
    public let maxPendingLines: Int
    private var buffer: [UInt8] = []
    private var lines: [[UInt8]] = []

    public init(maxLineBytes: Int = ControlRequest.maxLineBytes, maxPendingLines: Int = 4) {
        self.maxLineBytes = maxLineBytes
        self.maxPendingLines = maxPendingLines
    }

    /// Takes `bytes`; throws when a line is too long or too many lines wait.
    public mutating func append(_ bytes: some Collection<UInt8>) throws(ControlError) {
        // Callers sit in other modules, where this generic method runs unspecialised: iterating
        // `bytes` there read every byte through a witness whose coroutine frame was allocated
        // (the FuzzControl profile: half its time). Contiguous bytes (an array or a slice of one,
        // what every caller has) are taken as a buffer, a line's bytes at a time.
        let done = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(ControlError) in try append(buffer) }
        }
        if let done {
            try done.get()
        } else {
            try Array(bytes).withUnsafeBufferPointer { buffer throws(ControlError) in try append(buffer) }
        }
    }

    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) throws(ControlError) {
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            // Bytes before the line feed (or the end) join the line while it stays under the cap
            // with its line feed, as if they came one at a time.
            let room = maxLineBytes - 1 - buffer.count
            guard end - start <= room else {
                buffer.append(contentsOf: bytes[start..<(start + room)])
                throw ControlError("request longer than \(maxLineBytes - 1) bytes")
            }
            guard end < bytes.count, lines.count < maxPendingLines else {
                buffer.append(contentsOf: bytes[start..<end])
                guard end < bytes.count else { return }
                throw ControlError("more than \(maxPendingLines) requests sent before their answers")
            }
            if buffer.isEmpty {
                lines.append(Array(bytes[start..<end]))  // a whole line in these bytes: one copy
            } else {
                buffer.append(contentsOf: bytes[start..<end])
                lines.append(buffer)
                buffer = []
            }
            start = end + 1
        }
    }

    /// The oldest complete line, if any.
    public mutating func next() -> [UInt8]? {
        lines.isEmpty ? nil : lines.removeFirst()
    }

    /// Bytes of an unfinished line.
    public var partialCount: Int { buffer.count }
}

/// An answer: `ok N` and N lines, or `error TEXT`. Lines never contain a line feed.
public enum ControlResponse: Sendable, Hashable {
    case ok([String])
    case error(String)

    /// The most lines one answer carries (a client refuses more).
    public static let maxLines = 10_000
    /// The longest answer line a client accepts.
    public static let maxLineBytes = 64 * 1024

    /// The answer as bytes on the wire.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        switch self {
        case .ok(let lines):
            bytes.append(contentsOf: "ok \(lines.count)\n".utf8)
            for line in lines { Self.appendLine(line, to: &bytes) }
        case .error(let text):
            bytes.append(contentsOf: "error ".utf8)
            Self.appendLine(text, to: &bytes)
        }
        return bytes
    }

    /// `text` as one line: its UTF-8 with every line feed and carriage return made a space (each
    /// is one byte, never part of another character's), then a line feed.
    private static func appendLine(_ text: String, to bytes: inout [UInt8]) {
        let start = bytes.count
        bytes.append(contentsOf: text.utf8)
        bytes.withUnsafeMutableBufferPointer { buffer in
            for index in start..<buffer.count where buffer[index] == 0x0A || buffer[index] == 0x0D { buffer[index] = 0x20 }
        }
        bytes.append(0x0A)
    }
}

/// The client's side: bytes from the server in, one ``ControlResponse`` out once it is whole.
public struct ControlResponseReader: Sendable {
    private var reader = ControlLineReader(maxLineBytes: ControlResponse.maxLineBytes, maxPendingLines: ControlResponse.maxLines + 1)
    private var expected: Int?
    private var lines: [String] = []

    private static let errorPrefix = Array("error ".utf8)
    private static let okPrefix = Array("ok ".utf8)

    public init() {}

    /// Takes `bytes`; returns the answer once it is complete (bytes after it are an error: the
    /// client sends one request at a time).
    public mutating func append(_ bytes: some Collection<UInt8>) throws(ControlError) -> ControlResponse? {
        try reader.append(bytes)
        while let raw = reader.next() {
            guard let line = String(validating: raw, as: UTF8.self) else { throw ControlError("the server's answer is not UTF-8") }
            guard let count = expected else {
                // Bytes, not characters: "error " followed by a combining mark is one grapheme
                // that String.hasPrefix would not match (the fuzzer's find).
                if raw.starts(with: Self.errorPrefix) { return .error(String(decoding: raw.dropFirst(6), as: UTF8.self)) }
                guard raw.starts(with: Self.okPrefix), let count = Int(String(decoding: raw.dropFirst(3), as: UTF8.self)),
                    (0...ControlResponse.maxLines).contains(count)
                else {
                    throw ControlError("not a dashport control answer: '\(ControlWords.shown(line))'")
                }
                if count == 0 { return .ok([]) }
                expected = count
                continue
            }
            lines.append(line)
            if lines.count == count { return .ok(lines) }
        }
        return nil
    }
}
