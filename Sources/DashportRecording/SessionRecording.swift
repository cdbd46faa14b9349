import DashportFiles
public import DashportMessages

/// A recorded AAP session: what one or more cars and a Dashport server said to each other, one
/// JSON line per message. The format is documented in the DashportRecording catalog,
/// "The session recording format"; ``formatVersion`` changes whenever a reader would misread.
public struct SessionRecording: Sendable, Hashable {
    public static let formatName = "dashport-session"
    public static let formatVersion = 1

    /// What the session shows, for people (the header's `description`).
    public var description: String
    /// Fields whose values change from run to run; see ``VolatileFields``.
    public var volatile: VolatileFields
    public var entries: [RecordedMessage]

    public init(description: String, volatile: VolatileFields = .standard, entries: [RecordedMessage] = []) {
        self.description = description
        self.volatile = volatile
        self.entries = entries
    }

    /// The file's text: the header line, then one line per message.
    public func serialized() -> String {
        var out = ""
        JSONValue.object([
            JSONMember("format", .string(Self.formatName)),
            JSONMember("version", .number(String(Self.formatVersion))),
            JSONMember("description", .string(description)),
            JSONMember("volatile", volatile.jsonValue),
        ]).write(to: &out)
        out += "\n"
        for entry in entries {
            entry.jsonValue.write(to: &out)
            out += "\n"
        }
        return out
    }

    /// Reads a file's text; errors name the line.
    public init(parsing text: String) throws(RecordingError) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().filter { !$0.element.isEmpty }
            .map { (number: $0.offset + 1, text: String($0.element)) }
        guard !lines.isEmpty else { throw RecordingError(line: 1, "empty file: no header line") }
        let header = lines.removeFirst()
        do throws(JSONDecodingError) {
            let json = try JSONValue(parsing: header.text)
            guard json["format"] == .string(Self.formatName) else {
                throw JSONDecodingError(path: "format", problem: "not \"\(Self.formatName)\"")
            }
            let version = try Int32(json: json["version"] ?? .null, path: "version")
            guard version == Self.formatVersion else {
                throw JSONDecodingError(path: "version", problem: "\(version) is not a version this reader knows (\(Self.formatVersion))")
            }
            description = try String(json: json["description"] ?? .string(""), path: "description")
            volatile = try VolatileFields(json: json["volatile"] ?? .object([]))
        } catch {
            throw RecordingError(line: header.number, "header: \(error)")
        }
        entries = []
        for line in lines {
            do throws(JSONDecodingError) {
                var entry = try RecordedMessage(json: try JSONValue(parsing: line.text))
                entry.line = line.number
                entries.append(entry)
            } catch {
                throw RecordingError(line: line.number, "\(error)")
            }
        }
    }
}

/// Who sent a recorded message.
public enum RecordedDirection: String, Sendable, Hashable {
    /// The car (head unit) to the server.
    case car
    /// The server (phone side) to the car.
    case server
}

/// One line of a recording: one whole AAP message.
public struct RecordedMessage: Sendable, Hashable {
    /// Which car of the session (1, 2, ...): each is its own connection.
    public var car: Int
    /// Milliseconds since the recording started (volatile: never compared).
    public var timeMs: Int64
    public var direction: RecordedDirection
    public var channel: UInt8
    public var service: RecordedService
    public var messageId: UInt16
    /// The schema's name of the id (`getChildren`); written for people, checked against `id`.
    public var name: String
    public var encrypted: Bool
    /// The body in the JSON form generated from the `.proto` schema.
    public var body: JSONValue
    /// The file line it came from (0 when built in memory).
    public var line: Int = 0

    public init(
        car: Int, timeMs: Int64, direction: RecordedDirection, channel: UInt8, service: RecordedService,
        messageId: UInt16, name: String, encrypted: Bool, body: JSONValue
    ) {
        self.car = car
        self.timeMs = timeMs
        self.direction = direction
        self.channel = channel
        self.service = service
        self.messageId = messageId
        self.name = name
        self.encrypted = encrypted
        self.body = body
    }

    public var jsonValue: JSONValue {
        .object([
            JSONMember("car", .number(String(car))),
            JSONMember("t", .number(String(timeMs))),
            JSONMember("dir", .string(direction.rawValue)),
            JSONMember("ch", .number(String(channel))),
            JSONMember("service", .string(service.rawValue)),
            JSONMember("id", .number(String(messageId))),
            JSONMember("name", .string(name)),
            JSONMember("enc", .bool(encrypted)),
            JSONMember("body", body),
        ])
    }

    public init(json: JSONValue) throws(JSONDecodingError) {
        func field(_ key: String) throws(JSONDecodingError) -> JSONValue {
            guard let value = json[key] else { throw JSONDecodingError(path: key, problem: "missing") }
            return value
        }
        car = Int(try UInt32(json: try field("car"), path: "car"))
        timeMs = try Int64(json: try field("t"), path: "t")
        let dir = try String(json: try field("dir"), path: "dir")
        guard let direction = RecordedDirection(rawValue: dir) else {
            throw JSONDecodingError(path: "dir", problem: "\(dir) is neither car nor server")
        }
        self.direction = direction
        let wideChannel = try UInt32(json: try field("ch"), path: "ch")
        guard let channel = UInt8(exactly: wideChannel) else { throw JSONDecodingError(path: "ch", problem: "over 255") }
        self.channel = channel
        let serviceName = try String(json: try field("service"), path: "service")
        guard let service = RecordedService(rawValue: serviceName) else {
            throw JSONDecodingError(path: "service", problem: "\(serviceName) is not a known service")
        }
        self.service = service
        messageId = try UInt16(json: try field("id"), path: "id")
        name = try String(json: try field("name"), path: "name")
        let expected = MessageCatalog.codec(service: service, messageId: messageId).name
        guard name == expected else {
            throw JSONDecodingError(path: "name", problem: "\(name) does not match id \(messageId) on \(serviceName) (\(expected))")
        }
        encrypted = try Bool(json: try field("enc"), path: "enc")
        body = try field("body")
    }

    /// The body's wire bytes, from its JSON form.
    public func bodyBytes() throws(JSONDecodingError) -> [UInt8] {
        try MessageCatalog.codec(service: service, messageId: messageId).fromJSON(body)
    }

    /// "step 12 (line 13), car 1, server → car dashport.media browseResult".
    public var title: String {
        let arrow = direction == .car ? "car → server" : "server → car"
        return "line \(line), car \(car), \(arrow) \(service.rawValue) \(name) (channel \(channel), id \(messageId))"
    }
}

/// A recording file that cannot be read.
public struct RecordingError: Error, Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var problem: String

    public init(line: Int, _ problem: String) {
        self.line = line
        self.problem = problem
    }

    public var description: String { "line \(line): \(problem)" }
}

import FoundationEssentials

extension SessionRecording {
    /// Reads a recording file.
    public static func read(from path: String) throws -> SessionRecording {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        do {
            return try SessionRecording(parsing: text)
        } catch {
            throw RecordingError(line: error.line, "\(path): \(error.problem)")
        }
    }

    /// Writes `recording` to `path` atomically through `Files` (a temporary file created 0600
    /// with `O_EXCL|O_NOFOLLOW`, flushed, renamed): a recording holds what a car asked for, so no
    /// other user may read it, not even for the moment between create and rename.
    public static func write(_ recording: SessionRecording, to path: String) throws {
        try Files.writeAtomically(Array(recording.serialized().utf8), to: path, mode: 0o600)
    }
}
