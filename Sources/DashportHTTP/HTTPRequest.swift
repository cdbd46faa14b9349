/// One HTTP/1.x request, as ``HTTPRequestParser`` read it: the method, the normalised path and
/// query, the headers in order and the body (at most ``HTTPLimits/maxBodyBytes``).
public struct HTTPRequest: Sendable, Hashable {
    /// The method as sent: `GET`, `POST`, ... (a token, case kept; methods are case-sensitive).
    public var method: String
    /// The request target exactly as sent on the request line, for logs.
    public var target: String
    /// The path, percent-decoded and normalised (`/a/./b/../c` is `/a/c`), always starting with `/`.
    public var path: String
    /// The query's `name=value` pairs in order, `+` and percent escapes decoded.
    public var query: [(name: String, value: String)]
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    public var minorVersion: Int
    /// The header fields in order, names as sent.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Whether the connection stays open after the answer (HTTP/1.1 unless `Connection: close`,
    /// HTTP/1.0 only with `Connection: keep-alive`).
    public var keepAlive: Bool

    public init(
        method: String, target: String, path: String, query: [(name: String, value: String)] = [], minorVersion: Int = 1,
        headers: [(name: String, value: String)] = [], body: [UInt8] = [], keepAlive: Bool = true
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.minorVersion = minorVersion
        self.headers = headers
        self.body = body
        self.keepAlive = keepAlive
    }

    /// The first header of that name (compared without regard to ASCII case).
    public func header(_ name: String) -> String? {
        headers.first { HTTPRequest.sameName($0.name, name) }?.value
    }

    /// The first query value of that name.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    static func sameName(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { lower($0) == lower($1) }
    }

    static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    public static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        a.method == b.method && a.target == b.target && a.path == b.path && a.minorVersion == b.minorVersion
            && a.body == b.body && a.keepAlive == b.keepAlive
            && a.query.map(\.name) == b.query.map(\.name) && a.query.map(\.value) == b.query.map(\.value)
            && a.headers.map(\.name) == b.headers.map(\.name) && a.headers.map(\.value) == b.headers.map(\.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(target)
        hasher.combine(body)
    }
}

/// What ``HTTPRequestParser`` accepts at most. Everything past a limit is refused with its status.
public struct HTTPLimits: Sendable, Hashable {
    /// Request line and headers together, with their line ends (431 past it; 414 when the request
    /// line alone is longer).
    public var maxHeadBytes: Int
    /// A body's `Content-Length` (413 past it).
    public var maxBodyBytes: Int
    /// Header fields per request (431 past it).
    public var maxHeaderCount: Int

    public init(maxHeadBytes: Int = 8 * 1024, maxBodyBytes: Int = 64 * 1024, maxHeaderCount: Int = 64) {
        self.maxHeadBytes = maxHeadBytes
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderCount = maxHeaderCount
    }
}

/// Why a request was refused: the status to answer with and a sentence saying what was wrong.
/// The connection is closed after the answer; nothing else is affected.
public struct HTTPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 400, 411, 413, 414, 431, 501 or 505.
    public var status: Int
    public var message: String

    public init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { "\(status) \(HTTPResponse.reasonPhrase(status)): \(message)" }
}
