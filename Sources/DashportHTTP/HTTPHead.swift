/// The head of one request (request line and header fields, with their CR LFs), parsed.
enum HTTPHead {
    /// The request without its body, and the body's length from `Content-Length`.
    static func parse(_ head: [UInt8], limits: HTTPLimits) throws(HTTPParseError) -> (HTTPRequest, Int) {
        // Lines without their CR LF; the last two entries are the empty line's remains.
        var lines = head.split(separator: 10, omittingEmptySubsequences: false).map { $0.dropLast() }
        while let last = lines.last, last.isEmpty { lines.removeLast() }
        guard let requestLine = lines.first else { throw HTTPParseError(400, "no request line") }
        let (method, target, minor) = try parseRequestLine(requestLine)
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            if headers.count == limits.maxHeaderCount {
                throw HTTPParseError(431, "more than \(limits.maxHeaderCount) header fields")
            }
            headers.append(try parseField(line))
        }
        let (path, query) = try HTTPRequestTarget.parse(target)
        let length = try bodyLength(headers, limits: limits)
        let hosts = headers.filter { HTTPRequest.sameName($0.name, "host") }.count
        if minor == 1 && hosts != 1 {
            throw HTTPParseError(400, hosts == 0 ? "an HTTP/1.1 request without a Host header" : "more than one Host header")
        }
        let connection = headers.filter { HTTPRequest.sameName($0.name, "connection") }
            .flatMap { $0.value.split(separator: ",").map { $0.trimmingSpaces.lowercased() } }
        let keepAlive = minor == 1 ? !connection.contains("close") : connection.contains("keep-alive")
        let request = HTTPRequest(
            method: method, target: target, path: path, query: query, minorVersion: minor, headers: headers, keepAlive: keepAlive)
        return (request, length)
    }

    /// `METHOD SP request-target SP HTTP/1.x`, single spaces.
    static func parseRequestLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> (String, String, Int) {
        let parts = line.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw HTTPParseError(400, "the request line is not METHOD TARGET HTTP/1.1") }
        let (method, target, version) = (parts[0], parts[1], parts[2])
        guard !method.isEmpty, method.allSatisfy(isTokenByte) else { throw HTTPParseError(400, "the method is not a token") }
        guard !target.isEmpty, target.allSatisfy({ $0 > 32 && $0 < 127 }) else {
            throw HTTPParseError(400, "the request target is empty or has a byte that is not visible ASCII")
        }
        let versionText = String(decoding: version, as: UTF8.self)
        let minor: Int
        switch versionText {
        case "HTTP/1.1": minor = 1
        case "HTTP/1.0": minor = 0
        default:
            let bytes = Array(version)
            if bytes.count == 8, versionText.hasPrefix("HTTP/"), bytes[6] == UInt8(ascii: "."),
                isDigit(bytes[5]), isDigit(bytes[7])
            {
                throw HTTPParseError(505, "\(versionText) is not served; this server speaks HTTP/1.1 and HTTP/1.0")
            }
            throw HTTPParseError(400, "the request line does not end in HTTP/1.1")
        }
        return (String(decoding: method, as: UTF8.self), String(decoding: target, as: UTF8.self), minor)
    }

    /// `name: value`, no space before the colon, optional spaces around the value.
    static func parseField(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> (name: String, value: String) {
        if let first = line.first, first == 32 || first == 9 {
            throw HTTPParseError(400, "a header line folded onto the previous one (obsolete line folding)")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw HTTPParseError(400, "a header line without a colon") }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
            throw HTTPParseError(400, "a header name that is empty or not a token (a space before the colon?)")
        }
        var value = line[(colon + 1)...]
        while let first = value.first, first == 32 || first == 9 { value = value.dropFirst() }
        while let last = value.last, last == 32 || last == 9 { value = value.dropLast() }
        guard value.allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }) else {
            throw HTTPParseError(400, "a header value with a control byte")
        }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    /// The body's length: `Content-Length` (one value, digits only), 0 without it. A
    /// `Transfer-Encoding` (chunked bodies) is not read.
    static func bodyLength(_ headers: [(name: String, value: String)], limits: HTTPLimits) throws(HTTPParseError) -> Int {
        let lengths = headers.filter { HTTPRequest.sameName($0.name, "content-length") }.map(\.value)
        let encoded = headers.contains { HTTPRequest.sameName($0.name, "transfer-encoding") }
        if encoded && !lengths.isEmpty { throw HTTPParseError(400, "both Transfer-Encoding and Content-Length") }
        if encoded { throw HTTPParseError(411, "a Transfer-Encoding body (chunked) is not read; send a Content-Length") }
        guard let first = lengths.first else { return 0 }
        guard lengths.allSatisfy({ $0 == first }) else { throw HTTPParseError(400, "Content-Length headers that disagree") }
        guard !first.isEmpty, first.utf8.allSatisfy(isDigit) else {
            throw HTTPParseError(400, "Content-Length \"\(first.prefix(32))\" is not a number")
        }
        let digits = first.drop { $0 == "0" }
        guard digits.count <= 12, let length = Int(digits.isEmpty ? "0" : digits), length <= limits.maxBodyBytes else {
            throw HTTPParseError(413, "a body of \(first.prefix(32)) bytes; at most \(limits.maxBodyBytes) are read")
        }
        return length
    }

    /// tchar of RFC 9110 §5.6.2.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
