// Sources/DashportMPD/MPDResponse.swift - what MPD answers: fields, binary chunks, ACKs, errors.

/// MPD's protocol version from its greeting (`OK MPD 0.23.5`).
public struct MPDVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public var patch: Int

    public init(_ major: Int, _ minor: Int, _ patch: Int = 0) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// `0.23.5` (a missing patch is 0); nil for anything else.
    public init?(parsing text: Substring) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count) else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 6, part.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int(part) else {
                return nil
            }
            numbers.append(value)
        }
        self.init(numbers[0], numbers[1], numbers.count == 3 ? numbers[2] : 0)
    }

    public static func < (a: MPDVersion, b: MPDVersion) -> Bool {
        (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
    }

    public var description: String { "\(major).\(minor).\(patch)" }
}

/// One `key: value` line of an answer, in the order MPD sent it.
public struct MPDField: Sendable, Hashable {
    public var key: String
    public var value: String
    public init(_ key: String, _ value: String) {
        self.key = key
        self.value = value
    }
}

/// A successful answer (`OK`): its fields in order, the bytes of a `binary:` chunk if it had one,
/// and, for a command list, where each command's fields end (one index per `list_OK`).
public struct MPDResponse: Sendable, Hashable {
    public var fields: [MPDField]
    public var binary: [UInt8]?
    public var listBoundaries: [Int]

    public init(fields: [MPDField] = [], binary: [UInt8]? = nil, listBoundaries: [Int] = []) {
        self.fields = fields
        self.binary = binary
        self.listBoundaries = listBoundaries
    }

    /// The first value of `key`, or nil.
    public subscript(key: String) -> String? { fields.first { $0.key == key }?.value }

    /// Every value of `key`, in order.
    public func values(of key: String) -> [String] { fields.compactMap { $0.key == key ? $0.value : nil } }

    /// The fields cut into records, a new one starting at every field whose key is in `starts`
    /// (song lists start at `file`, `lsinfo` at `file`, `directory` or `playlist`). Fields before
    /// the first start are dropped.
    public func records(startingAt starts: Set<String>) -> [[MPDField]] {
        var records: [[MPDField]] = []
        for field in fields {
            if starts.contains(field.key) {
                records.append([field])
            } else if !records.isEmpty {
                records[records.count - 1].append(field)
            }
        }
        return records
    }
}

/// MPD refused a command: `ACK [code@index] {command} message`.
public struct MPDAck: Error, Sendable, Hashable, CustomStringConvertible {
    /// MPD's error codes (`enum ack` in MPD's `protocol/Ack.hxx`).
    public enum Code: Int, Sendable {
        case notList = 1
        case argument = 2
        case password = 3
        case permission = 4
        case unknown = 5
        case noExist = 50
        case playlistMax = 51
        case system = 52
        case playlistLoad = 53
        case updateAlready = 54
        case playerSync = 55
        case exist = 56
    }

    public var code: Int
    /// Which command of a command list failed (0 outside a list).
    public var index: Int
    public var command: String
    public var message: String

    public init(code: Int, index: Int, command: String, message: String) {
        self.code = code
        self.index = index
        self.command = command
        self.message = message
    }

    public var known: Code? { Code(rawValue: code) }

    public var description: String { "MPD refused \(command.isEmpty ? "a command" : command): \(message) (ACK \(code))" }
}

/// Bytes from MPD that break its protocol or the client's bounds. The connection that sent them is
/// closed; nothing else is affected.
public enum MPDProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    case badGreeting(String)
    case lineTooLong(limit: Int)
    case responseTooLarge(limit: Int)
    case binaryTooLarge(size: Int, limit: Int)
    case badBinaryLength(String)
    case missingBinaryTerminator
    case malformedLine(String)
    case badAck(String)
    /// A command name that is not a plain lowercase word (refused before sending).
    case badCommand(String)
    /// An argument with a newline, CR or NUL, which MPD's protocol cannot carry.
    case argumentNotSendable(String)
    case commandTooLong(String, Int)
    /// An answer arrived with no command waiting for it.
    case unexpectedAnswer

    public var description: String {
        switch self {
        case .badGreeting(let line): "not an MPD server (greeting \(Self.excerpt(line)))"
        case .lineTooLong(let limit): "a line from MPD is longer than \(limit) bytes"
        case .responseTooLarge(let limit): "an answer from MPD is larger than \(limit) bytes"
        case .binaryTooLarge(let size, let limit): "a binary chunk of \(size) bytes is over the limit of \(limit)"
        case .badBinaryLength(let text): "a binary chunk with a bad length (\(Self.excerpt(text)))"
        case .missingBinaryTerminator: "a binary chunk not followed by a newline"
        case .malformedLine(let line): "a line MPD's protocol does not have: \(Self.excerpt(line))"
        case .badAck(let line): "a malformed ACK: \(Self.excerpt(line))"
        case .badCommand(let name): "not an MPD command name: \(Self.excerpt(name))"
        case .argumentNotSendable(let argument): "an argument MPD's protocol cannot carry (newline or NUL): \(Self.excerpt(argument))"
        case .commandTooLong(let name, let bytes): "the \(name) command is \(bytes) bytes, over \(MPDCommand.maxLineBytes)"
        case .unexpectedAnswer: "an answer from MPD that no command asked for"
        }
    }

    static func excerpt(_ text: String) -> String {
        let cut = text.unicodeScalars.prefix(80).map { $0.value < 0x20 ? "?" : Character($0) }
        return "\"" + String(cut) + (text.unicodeScalars.count > 80 ? "…" : "") + "\""
    }
}
