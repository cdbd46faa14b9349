public import FoundationEssentials
import Glibc
import Synchronization

/// How much a ``Logger`` says. Ordered: a logger at `.info` prints info, notice, warning and error.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    case trace, debug, info, notice, warning, error

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }

    public var description: String {
        switch self {
        case .trace: "trace"
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .warning: "warning"
        case .error: "error"
        }
    }

    /// Parses `trace`, `debug`, `info`, `notice`, `warning` (or `warn`) and `error`.
    public init?(name: String) {
        switch name.lowercased() {
        case "trace": self = .trace
        case "debug": self = .debug
        case "info": self = .info
        case "notice": self = .notice
        case "warning", "warn": self = .warning
        case "error": self = .error
        default: return nil
        }
    }
}

/// One log line as handed to a ``LogSink``.
public struct LogRecord: Sendable, Equatable {
    public var level: LogLevel
    public var label: String
    public var message: String
    /// Who and what the line is about, in the order it was attached: `peer`, `channel`, `message`, ...
    public var metadata: [(String, String)]

    public init(level: LogLevel, label: String, message: String, metadata: [(String, String)]) {
        self.level = level
        self.label = label
        self.message = message
        self.metadata = metadata
    }

    public static func == (a: LogRecord, b: LogRecord) -> Bool {
        a.level == b.level && a.label == b.label && a.message == b.message
            && a.metadata.map(\.0) == b.metadata.map(\.0) && a.metadata.map(\.1) == b.metadata.map(\.1)
    }

    /// `2026-11-29T17:40:00.123Z info  link: channel opened peer=127.0.0.1:40112 channel=13`
    ///
    /// Always exactly one line, whatever a peer put in the message or the values: control characters
    /// (newlines, ESC, C1 codes, Unicode line separators and bidirectional overrides) are written as
    /// escapes (``escaped(_:)``), and a value with a space, `"` or `=` is quoted with its quotes and
    /// backslashes escaped, so a car's search query or model name can neither start a forged line,
    /// drive the terminal, nor add a `key=value` of its own.
    ///
    /// Bounded, whatever a peer sent: the message is cut at ``maxMessageBytes`` and each value at
    /// ``maxValueBytes`` (UTF-8, on a character boundary), the cut saying how much was left out, so a
    /// car's 200 KB model name costs one short line, not a 200 KB one.
    public func formatted(timestamp: Date) -> String {
        let levelName = level.description.prefix(7)
        let padding = String(repeating: " ", count: 7 - levelName.count)
        let text = LogRecord.escaped(LogRecord.truncated(message, maxBytes: LogRecord.maxMessageBytes))
        var line = "\(LogRecord.timestampFormat.format(timestamp)) \(levelName)\(padding) \(label): \(text)"
        for (key, value) in metadata {
            let cut = LogRecord.truncated(value, maxBytes: LogRecord.maxValueBytes)
            line += " \(LogRecord.escaped(LogRecord.truncated(key, maxBytes: 64)))=\(LogRecord.quoted(cut))"
        }
        return line
    }

    /// The longest message written (UTF-8 bytes, before escaping); the rest is cut.
    public static let maxMessageBytes = 2048
    /// The longest metadata value written (UTF-8 bytes, before escaping); the rest is cut.
    public static let maxValueBytes = 256

    /// `text` cut to at most `maxBytes` UTF-8 bytes on a character boundary, ending in
    /// `…[+N bytes]` when anything was cut.
    public static func truncated(_ text: String, maxBytes: Int) -> String {
        let total = text.utf8.count
        guard total > maxBytes else { return text }
        var kept = 0
        var end = text.startIndex
        for index in text.indices {
            let size = text[index].utf8.count
            if kept + size > maxBytes { break }
            kept += size
            end = text.index(after: index)
        }
        return String(text[..<end]) + "…[+\(total - kept) bytes]"
    }

    /// `text` with every character that could break or forge a log line written as an escape:
    /// `\n`, `\r`, `\t`, and `\u{…}` for the other C0 and C1 controls, DEL, U+2028/U+2029 and the
    /// bidirectional embedding, override and isolate characters. Everything else is kept.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where needsEscape(scalar): out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A metadata value as written: as is when it is plain; else (empty, or holding a space, `"`,
    /// `=`, a backslash or a control) quoted, with backslashes and quotes escaped, then ``escaped(_:)``.
    static func quoted(_ value: String) -> String {
        let plain =
            !value.isEmpty
            && !value.unicodeScalars.contains { scalar in
                scalar == " " || scalar == "\"" || scalar == "=" || scalar == "\\" || needsEscape(scalar)
            }
        if plain { return value }
        var inner = ""
        inner.reserveCapacity(value.utf8.count + 4)
        for scalar in value.unicodeScalars {
            if scalar == "\\" || scalar == "\"" { inner.unicodeScalars.append("\\") }
            inner.unicodeScalars.append(scalar)
        }
        return "\"" + escaped(inner) + "\""
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true  // C0 (newline, ESC, ...), DEL, C1 (CSI, NEL, ...)
        case 0x2028, 0x2029: true  // line and paragraph separators
        case 0x202A...0x202E, 0x2066...0x2069: true  // bidirectional embeddings, overrides, isolates
        default: false
        }
    }

    private static let timestampFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}

/// Where log records go. The default writes lines to standard error; tests collect records.
public protocol LogSink: Sendable {
    func write(_ record: LogRecord)
}

/// Writes formatted lines to standard error, one `write(2)` per line so lines never interleave.
public struct StandardErrorSink: LogSink {
    public init() {}
    public func write(_ record: LogRecord) {
        let line = record.formatted(timestamp: Date()) + "\n"
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            _ = Glibc.write(2, buffer.baseAddress, buffer.count)
        }
    }
}

/// Keeps every record in memory: for tests that assert what was logged.
public final class CollectingSink: LogSink {
    private let storage = Mutex<[LogRecord]>([])
    public init() {}
    public func write(_ record: LogRecord) { storage.withLock { $0.append(record) } }
    public var records: [LogRecord] { storage.withLock { $0 } }
    public func contains(_ level: LogLevel? = nil, _ fragment: String) -> Bool {
        records.contains { (level == nil || $0.level == level) && $0.message.contains(fragment) }
    }
}

/// A small structured logger: a label (the layer), a level, metadata saying who the line is about.
///
/// ```swift
/// let log = Logger(label: "link").with("peer", "127.0.0.1:40112")
/// log.info("channel opened", ["channel": "13", "service": "mediaPlaybackStatus"])
/// ```
public struct Logger: Sendable {
    public var label: String
    public var level: LogLevel
    public var metadata: [(String, String)]
    public var sink: any LogSink

    public init(label: String, level: LogLevel = .info, sink: any LogSink = StandardErrorSink()) {
        self.label = label
        self.level = level
        self.metadata = []
        self.sink = sink
    }

    /// A copy that attaches `key=value` to every line it logs.
    public func with(_ key: String, _ value: String) -> Logger {
        var copy = self
        copy.metadata.append((key, value))
        return copy
    }

    /// A copy with another label (same level, sink and metadata).
    public func labelled(_ label: String) -> Logger {
        var copy = self
        copy.label = label
        return copy
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, _ extra: KeyValuePairs<String, String> = [:]) {
        guard level >= self.level else { return }
        var all = metadata
        for (key, value) in extra { all.append((key, value)) }
        sink.write(LogRecord(level: level, label: label, message: message(), metadata: all))
    }

    public func trace(_ m: @autoclosure () -> String, _ x: KeyValuePairs<String, String> = [:]) { log(.trace, m(), x) }
    public func debug(_ m: @autoclosure () -> String, _ x: KeyValuePairs<String, String> = [:]) { log(.debug, m(), x) }
    public func info(_ m: @autoclosure () -> String, _ x: KeyValuePairs<String, String> = [:]) { log(.info, m(), x) }
    public func notice(_ m: @autoclosure () -> String, _ x: KeyValuePairs<String, String> = [:]) { log(.notice, m(), x) }
    public func warning(_ m: @autoclosure () -> String, _ x: KeyValuePairs<String, String> = [:]) { log(.warning, m(), x) }
    public func error(_ m: @autoclosure () -> String, _ x: KeyValuePairs<String, String> = [:]) { log(.error, m(), x) }

    /// A logger that drops everything (the default in sans-IO types that take an optional logger).
    public static let silent = Logger(label: "silent", level: .error, sink: NullSink())
}

struct NullSink: LogSink {
    func write(_ record: LogRecord) {}
}
