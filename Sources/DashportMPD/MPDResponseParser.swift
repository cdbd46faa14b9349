// Sources/DashportMPD/MPDResponseParser.swift - sans-IO parser of MPD's answers: bytes in, events out.

/// The bounds a parser keeps; past any of them the connection is closed with a clear error.
public struct MPDLimits: Sendable, Hashable {
    /// Longest line (greeting, field, ACK), newline excluded.
    public var maxLineBytes: Int
    /// Largest answer, fields and binary together (a `listallinfo` of a big library is the big one).
    public var maxResponseBytes: Int
    /// Largest `binary:` chunk (the client asks MPD for chunks of ``MPDClient``'s binary limit).
    public var maxBinaryBytes: Int

    public init(maxLineBytes: Int = 16 * 1024, maxResponseBytes: Int = 64 * 1024 * 1024, maxBinaryBytes: Int = 1024 * 1024) {
        self.maxLineBytes = maxLineBytes
        self.maxResponseBytes = maxResponseBytes
        self.maxBinaryBytes = maxBinaryBytes
    }
}

/// What the parser found, in the order MPD sent it.
public enum MPDEvent: Sendable, Hashable {
    /// The first line of a connection: `OK MPD 0.23.5`.
    case greeting(MPDVersion)
    /// One whole answer ending in `OK`.
    case response(MPDResponse)
    /// One answer ending in `ACK …` (what the command had answered before it is dropped).
    case ack(MPDAck)
}

/// Turns MPD's bytes into ``MPDEvent``s. Feed it whatever the socket gave, in any splits; it
/// keeps at most one line (or one binary chunk) plus the answer being assembled, within
/// ``MPDLimits``. After it throws, it stays failed (the connection must be closed).
public struct MPDResponseParser: Sendable {
    public let limits: MPDLimits
    private var buffer: [UInt8] = []
    private var start = 0
    private var phase = Phase.greeting
    private var fields: [MPDField] = []
    private var binary: [UInt8]?
    private var boundaries: [Int] = []
    private var responseBytes = 0
    private var failure: MPDProtocolError?

    private enum Phase: Sendable {
        case greeting, lines
        /// Reading a binary chunk: this many bytes still to come, then a newline.
        case binary(remaining: Int)
        case binaryTerminator
    }

    public init(limits: MPDLimits = MPDLimits()) {
        self.limits = limits
    }

    /// Bytes buffered and not yet parsed (for tests of the bounds).
    public var bufferedBytes: Int { buffer.count - start }

    /// Parses `bytes` after whatever came before; returns the events they completed.
    public mutating func feed(_ bytes: some Collection<UInt8>) throws(MPDProtocolError) -> [MPDEvent] {
        if let failure { throw failure }
        buffer.append(contentsOf: bytes)
        var events: [MPDEvent] = []
        do throws(MPDProtocolError) {
            while try step(into: &events) {}
        } catch {
            failure = error
            throw error
        }
        if start > 0 && (start == buffer.count || start > 64 * 1024) {
            buffer.removeFirst(start)
            start = 0
        }
        return events
    }

    /// Parses one line or chunk; false when more bytes are needed.
    private mutating func step(into events: inout [MPDEvent]) throws(MPDProtocolError) -> Bool {
        switch phase {
        case .binary(let remaining):
            let available = buffer.count - start
            guard available > 0 else { return false }
            let take = min(available, remaining)
            binary?.append(contentsOf: buffer[start..<(start + take)])
            start += take
            phase = take == remaining ? .binaryTerminator : .binary(remaining: remaining - take)
            return true
        case .binaryTerminator:
            guard start < buffer.count else { return false }
            guard buffer[start] == 0x0A else { throw .missingBinaryTerminator }
            start += 1
            phase = .lines
            return true
        case .greeting, .lines:
            guard let newline = buffer[start...].firstIndex(of: 0x0A) else {
                if buffer.count - start > limits.maxLineBytes { throw .lineTooLong(limit: limits.maxLineBytes) }
                return false
            }
            guard newline - start <= limits.maxLineBytes else { throw .lineTooLong(limit: limits.maxLineBytes) }
            let line = buffer[start..<newline]
            start = newline + 1
            try handle(line, into: &events)
            return true
        }
    }

    private mutating func handle(_ line: ArraySlice<UInt8>, into events: inout [MPDEvent]) throws(MPDProtocolError) {
        if case .greeting = phase {
            let text = String(decoding: line, as: UTF8.self)
            guard text.hasPrefix("OK MPD "), let version = MPDVersion(parsing: text.dropFirst(7)) else { throw .badGreeting(text) }
            phase = .lines
            events.append(.greeting(version))
            return
        }
        responseBytes += line.count + 1
        guard responseBytes <= limits.maxResponseBytes else { throw .responseTooLarge(limit: limits.maxResponseBytes) }
        if line.elementsEqual("OK".utf8) {
            events.append(.response(MPDResponse(fields: fields, binary: binary, listBoundaries: boundaries)))
            reset()
        } else if line.elementsEqual("list_OK".utf8) {
            boundaries.append(fields.count)
        } else if line.starts(with: "ACK ".utf8) {
            events.append(.ack(try Self.ack(String(decoding: line, as: UTF8.self))))
            reset()
        } else if let colon = line.firstIndex(of: 0x3A), colon > line.startIndex, line.index(after: colon) < line.endIndex,
            line[line.index(after: colon)] == 0x20
        {
            let key = String(decoding: line[..<colon], as: UTF8.self)
            let value = String(decoding: line[(colon + 2)...], as: UTF8.self)
            if key == "binary" {
                guard binary == nil, let size = Int(value), size >= 0, value.utf8.count <= 12 else { throw .badBinaryLength(value) }
                guard size <= limits.maxBinaryBytes else { throw .binaryTooLarge(size: size, limit: limits.maxBinaryBytes) }
                responseBytes += size + 1
                guard responseBytes <= limits.maxResponseBytes else { throw .responseTooLarge(limit: limits.maxResponseBytes) }
                binary = []
                binary?.reserveCapacity(size)
                phase = .binary(remaining: size)
            }
            fields.append(MPDField(key, value))
        } else {
            throw .malformedLine(String(decoding: line, as: UTF8.self))
        }
    }

    private mutating func reset() {
        fields = []
        binary = nil
        boundaries = []
        responseBytes = 0
    }

    /// `ACK [50@0] {play} No such song`; the command may be empty (`{}`), the message too.
    static func ack(_ line: String) throws(MPDProtocolError) -> MPDAck {
        var rest = Substring(line).dropFirst(4)
        guard rest.first == "[", let at = rest.firstIndex(of: "@"), let close = rest.firstIndex(of: "]"), at < close,
            let code = Int(rest[rest.index(after: rest.startIndex)..<at]),
            let index = Int(rest[rest.index(after: at)..<close])
        else { throw .badAck(line) }
        rest = rest[rest.index(after: close)...]
        guard rest.first == " " else { throw .badAck(line) }
        rest = rest.dropFirst()
        guard rest.first == "{", let end = rest.firstIndex(of: "}") else { throw .badAck(line) }
        let command = String(rest[rest.index(after: rest.startIndex)..<end])
        rest = rest[rest.index(after: end)...]
        if rest.first == " " { rest = rest.dropFirst() }
        return MPDAck(code: code, index: index, command: command, message: String(rest))
    }
}
