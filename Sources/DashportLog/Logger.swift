public import Foundation
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
    public func formatted(timestamp: Date) -> String {
        var line = "\(LogRecord.timestampFormat.format(timestamp)) \(level.description.padding(toLength: 7, withPad: " ", startingAt: 0)) \(label): \(message)"
        for (key, value) in metadata {
            line += " \(key)=\(value.contains(" ") ? "\"\(value)\"" : value)"
        }
        return line
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
            _ = Foundation.write(2, buffer.baseAddress, buffer.count)
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
