/// A sans-IO HTTP/1.1 request reader: hand it the bytes a client sends (``append(_:)``), in any
/// splits, and take the requests out in order (``next()``), pipelined or one at a time.
///
/// It reads only what a small local server needs (RFC 9112): a request line in origin form, header
/// fields, and a body announced by `Content-Length`. Anything else is refused with a status and a
/// sentence (``HTTPParseError``), and the parser stays failed: the server answers that status and
/// closes the connection. What it buffers is bounded: a head is at most
/// ``HTTPLimits/maxHeadBytes``, a body at most ``HTTPLimits/maxBodyBytes``; bytes past the request
/// being read wait in the buffer (the server stops reading while requests are pending).
public struct HTTPRequestParser: Sendable {
    public let limits: HTTPLimits
    private var buffer: [UInt8] = []
    /// Where unread bytes start in `buffer`.
    private var start = 0
    /// How far the search for the head's end got (relative to `start`), so bytes are scanned once.
    private var scanned = 0
    private var pending: HTTPRequest?
    private var bodyLength = 0
    private var failure: HTTPParseError?
    private var continueOwed = false

    public init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
    }

    /// Bytes buffered and not yet part of a request taken out.
    public var bufferedBytes: Int { buffer.count - start }

    /// True when nothing is buffered and no request is half read.
    public var isIdle: Bool { bufferedBytes == 0 && pending == nil }

    /// True once per request whose head asked `Expect: 100-continue` and whose body has not come:
    /// the server answers `100 Continue` so the client sends it (curl waits a second otherwise).
    public mutating func takeContinue() -> Bool {
        defer { continueOwed = false }
        return continueOwed
    }

    /// Adds bytes from the client.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole request, nil when more bytes are needed; throws (and keeps throwing) once the
    /// input broke a rule.
    public mutating func next() throws(HTTPParseError) -> HTTPRequest? {
        if let failure { throw failure }
        do {
            return try step()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func step() throws(HTTPParseError) -> HTTPRequest? {
        if pending == nil {
            skipLeadingLineEnds()
            guard let headEnd = try findHeadEnd() else { return nil }
            let head = Array(buffer[start..<headEnd])
            consume(headEnd - start)
            let (request, length) = try HTTPHead.parse(head, limits: limits)
            pending = request
            bodyLength = length
            continueOwed = length > 0 && request.header("expect")?.lowercased() == "100-continue"
        }
        guard bufferedBytes >= bodyLength, var request = pending else { return nil }
        continueOwed = false
        request.body = Array(buffer[start..<start + bodyLength])
        consume(bodyLength)
        pending = nil
        bodyLength = 0
        return request
    }

    /// RFC 9112 §2.2: empty lines before a request line are ignored (some clients send one after a body).
    private mutating func skipLeadingLineEnds() {
        while bufferedBytes >= 2, buffer[start] == 13, buffer[start + 1] == 10 { consume(2) }
    }

    /// The index just past the empty line ending the head, nil when it is not all here yet.
    private mutating func findHeadEnd() throws(HTTPParseError) -> Int? {
        var index = start + scanned
        let end = buffer.count
        while index < end {
            let byte = buffer[index]
            if byte == 10 {
                guard index > start, buffer[index - 1] == 13 else { throw HTTPParseError(400, "a line ends in LF without CR") }
                // An empty line (CR LF right after the previous LF) ends the head.
                if index - start >= 3, buffer[index - 2] == 10 {
                    guard index + 1 - start <= limits.maxHeadBytes else { throw tooLong() }
                    return index + 1
                }
            } else if index > start, buffer[index - 1] == 13 {
                throw HTTPParseError(400, "a CR that does not end a line")
            }
            index += 1
            if index - start > limits.maxHeadBytes { throw tooLong() }
        }
        scanned = index - start
        // A CR at the very end waits for its LF.
        return nil
    }

    private func tooLong() -> HTTPParseError {
        let lineEnded = buffer[start..<min(buffer.count, start + limits.maxHeadBytes + 1)].contains(10)
        return lineEnded
            ? HTTPParseError(431, "the request head is longer than \(limits.maxHeadBytes) bytes")
            : HTTPParseError(414, "the request line is longer than \(limits.maxHeadBytes) bytes")
    }

    private mutating func consume(_ count: Int) {
        start += count
        scanned = 0
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 2 * limits.maxHeadBytes)
            start = 0
        }
    }
}
