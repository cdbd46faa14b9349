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
        for byte in bytes {
            if byte == 0x0A {
                guard lines.count < maxPendingLines else {
                    throw ControlError("more than \(maxPendingLines) requests sent before their answers")
                }
                lines.append(buffer)
                buffer.removeAll(keepingCapacity: true)
            } else {
                guard buffer.count + 1 < maxLineBytes else {
                    throw ControlError("request longer than \(maxLineBytes - 1) bytes")
                }
                buffer.append(byte)
            }
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
        switch self {
        case .ok(let lines):
            return Array((["ok \(lines.count)"] + lines.map(Self.oneLine)).map { $0 + "\n" }.joined().utf8)
        case .error(let text):
            return Array("error \(Self.oneLine(text))\n".utf8)
        }
    }

    private static func oneLine(_ text: String) -> String {
        String(text.unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : Character($0) })
    }
}

/// The client's side: bytes from the server in, one ``ControlResponse`` out once it is whole.
public struct ControlResponseReader: Sendable {
    private var reader = ControlLineReader(maxLineBytes: ControlResponse.maxLineBytes, maxPendingLines: ControlResponse.maxLines + 1)
    private var expected: Int?
    private var lines: [String] = []

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
                if raw.starts(with: Array("error ".utf8)) { return .error(String(decoding: raw.dropFirst(6), as: UTF8.self)) }
                guard raw.starts(with: Array("ok ".utf8)), let count = Int(String(decoding: raw.dropFirst(3), as: UTF8.self)),
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
