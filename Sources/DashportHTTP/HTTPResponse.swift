/// One HTTP/1.1 response: status, header fields and a body whose length is sent as
/// `Content-Length`. ``encoded(keepAlive:bodyIsOpenEnded:)`` writes it for the wire.
public struct HTTPResponse: Sendable, Hashable {
    public var status: Int
    /// Fields beyond `Content-Length` and `Connection`, which the encoder writes itself.
    public var headers: [HTTPField]
    public var body: [UInt8]

    public init(status: Int, headers: [HTTPField] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A body of `contentType`, not to be cached (the page and its answers change with the session).
    public init(status: Int = 200, contentType: String, body: [UInt8], headers: [HTTPField] = []) {
        self.init(
            status: status,
            headers: [HTTPField("Content-Type", contentType), HTTPField("Cache-Control", "no-store")] + HTTPResponse.safetyHeaders
                + headers,
            body: body)
    }

    /// A plain-text answer: the status line's words and a sentence, for errors.
    public static func text(_ status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array((message + "\n").utf8))
    }

    /// What every answer carries: no content sniffing, not framed by other sites, no referrer.
    public static let safetyHeaders = [
        HTTPField("X-Content-Type-Options", "nosniff"), HTTPField("X-Frame-Options", "DENY"),
        HTTPField("Referrer-Policy", "no-referrer"),
    ]

    /// The status line, the fields, `Content-Length` (unless `bodyIsOpenEnded`), `Connection` and the body.
    public func encoded(keepAlive: Bool, bodyIsOpenEnded: Bool = false) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(HTTPResponse.reasonPhrase(status))\r\n"
        for field in headers { text += "\(field.name): \(field.value)\r\n" }
        if !bodyIsOpenEnded { text += "Content-Length: \(body.count)\r\n" }
        text += keepAlive && !bodyIsOpenEnded ? "Connection: keep-alive\r\n" : "Connection: close\r\n"
        text += "\r\n"
        return Array(text.utf8) + body
    }

    /// The reason phrase of the statuses this server sends.
    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}

/// One header field of a response. Names and values are the server's own text; CR and LF are
/// replaced by spaces so no value can end the head early.
public struct HTTPField: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = HTTPField.oneLine(name)
        self.value = HTTPField.oneLine(value)
    }

    static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\r" || $0 == "\n" ? " " : $0 }))
    }
}

/// Server-sent events (the WHATWG `text/event-stream` format): each event is an optional `event:`
/// line, one `data:` line per line of its data, and an empty line.
public enum ServerSentEvents {
    /// The head of an event stream: no length (the body lasts as long as the connection).
    public static func responseHead() -> [UInt8] {
        HTTPResponse(
            status: 200,
            headers: [HTTPField("Content-Type", "text/event-stream; charset=utf-8"), HTTPField("Cache-Control", "no-store")]
                + HTTPResponse.safetyHeaders
        ).encoded(keepAlive: false, bodyIsOpenEnded: true)
    }

    /// One event named `name` (nil: the default `message`) carrying `data`; a line end in the data
    /// (CR LF, CR or LF) starts another `data:` line, so the client gets `data` back with LFs.
    public static func event(_ name: String?, data: String) -> [UInt8] {
        var text = ""
        if let name { text += "event: \(HTTPField.oneLine(name))\n" }
        let normalised = data.replacingLineEnds()
        for line in normalised.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        text += "\n"
        return Array(text.utf8)
    }

    /// A comment line: ignored by the client, keeps proxies and the connection awake.
    public static func comment(_ text: String) -> [UInt8] {
        Array(": \(HTTPField.oneLine(text))\n\n".utf8)
    }
}

extension String {
    /// CR LF and lone CRs as LF.
    func replacingLineEnds() -> String {
        var result = ""
        var lastWasCR = false
        for scalar in unicodeScalars {
            if scalar == "\n" && lastWasCR {
                lastWasCR = false
                continue
            }
            lastWasCR = scalar == "\r"
            result.unicodeScalars.append(scalar == "\r" ? "\n" : scalar)
        }
        return result
    }
}
