// The FuzzHTTP driver: arbitrary bytes as what a browser sends to `dashport-hu web`'s server.
import DashportHTTP

/// Feeds the input to ``HTTPRequestParser`` (byte 0 picks default or tight limits) and checks
/// (through `fuzzViolation`: a trap under libFuzzer, an issue in the replay test):
/// - whole, in input-derived splits and byte by byte the parser gives the same requests and then
///   the same error (or none);
/// - nothing it keeps passes a bound: buffered bytes within the head cap plus one body plus the
///   chunk just added, a body within the body cap, headers within the count cap;
/// - every path it hands out starts with `/`, has no empty, `.` or `..` segment and no control
///   byte or `\`, so no route lookup can be steered outside the fixed table; parsing the path
///   again as a target gives the same path (normalising is idempotent);
/// - a request written back (request line, headers, Content-Length body) parses to the same request.
public enum HTTPFuzz {
    public static func run(_ input: [UInt8]) {
        guard let mode = input.first else { return }
        let body = Array(input.dropFirst())
        let limits =
            mode & 1 == 0
            ? HTTPLimits() : HTTPLimits(maxHeadBytes: 64 + Int(mode >> 1), maxBodyBytes: Int(mode >> 4), maxHeaderCount: 3)
        let whole = parse([body[...]], limits: limits)
        let split = parse(splits(body).map { body[$0] }, limits: limits)
        let bytewise = parse(body.indices.map { body[$0...$0] }, limits: limits)
        fuzzCheck(whole.requests == split.requests, "split parsing gives other requests than whole parsing")
        fuzzCheck(whole.requests == bytewise.requests, "byte-by-byte parsing gives other requests than whole parsing")
        fuzzCheck(whole.error == split.error && whole.error == bytewise.error, "split parsing fails differently from whole parsing")
        for parsed in [whole, split, bytewise] {
            fuzzCheck(
                parsed.maxBuffered <= limits.maxHeadBytes + limits.maxBodyBytes + parsed.maxChunk + 4,
                "\(parsed.maxBuffered) bytes buffered")
        }
        for request in whole.requests { check(request, limits: limits) }
    }

    struct Parsed {
        var requests: [HTTPRequest] = []
        var error: HTTPParseError?
        var maxBuffered = 0
        var maxChunk = 0
    }

    static func parse(_ chunks: [ArraySlice<UInt8>], limits: HTTPLimits) -> Parsed {
        var parser = HTTPRequestParser(limits: limits)
        var parsed = Parsed()
        for chunk in chunks {
            parser.append(chunk)
            parsed.maxChunk = max(parsed.maxChunk, chunk.count)
            parsed.maxBuffered = max(parsed.maxBuffered, parser.bufferedBytes)
            do throws(HTTPParseError) {
                while let request = try parser.next() { parsed.requests.append(request) }
            } catch {
                parsed.error = error
                return parsed
            }
        }
        return parsed
    }

    static func splits(_ input: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        for (index, byte) in input.enumerated() where byte & 7 == 5 {
            ranges.append(start..<index + 1)
            start = index + 1
        }
        ranges.append(start..<input.count)
        return ranges
    }

    static func check(_ request: HTTPRequest, limits: HTTPLimits) {
        fuzzCheck(request.body.count <= limits.maxBodyBytes, "a body of \(request.body.count) bytes")
        fuzzCheck(request.headers.count <= limits.maxHeaderCount, "\(request.headers.count) headers")
        let path = request.path
        fuzzCheck(path.hasPrefix("/"), "path \(path) does not start with /")
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if path != "/" {
            fuzzCheck(!segments.contains { $0.isEmpty || $0 == "." || $0 == ".." }, "path \(path) has an empty, . or .. segment")
        }
        fuzzCheck(!path.utf8.contains { $0 < 32 || $0 == 127 || $0 == UInt8(ascii: "\\") }, "path \(path) has a control byte or \\")
        // The path, escaped again, normalises to itself.
        let escaped = "/" + segments.map { escape($0) }.joined(separator: "/")
        if let again = try? HTTPRequestTarget.parse(path == "/" ? "/" : escaped) {
            fuzzCheck(again.0 == path, "path \(path) normalises to \(again.0) the second time")
        } else {
            fuzzViolation("path \(path), escaped again, is refused")
        }
        // Written back, it reads the same.
        var text = "\(request.method) \(request.target) HTTP/1.\(request.minorVersion)\r\n"
        for header in request.headers { text += "\(header.name): \(header.value)\r\n" }
        if !request.body.isEmpty && !request.headers.contains(where: { $0.name.lowercased() == "content-length" }) {
            fuzzViolation("a body without a Content-Length")
        }
        var again = HTTPRequestParser(limits: HTTPLimits(maxHeadBytes: 1 << 20, maxBodyBytes: limits.maxBodyBytes, maxHeaderCount: 1 << 10))
        again.append(Array((text + "\r\n").utf8) + request.body)
        do throws(HTTPParseError) {
            let reread = try again.next()
            fuzzCheck(reread == request, "request \(request.target) written back reads differently")
        } catch {
            fuzzViolation("request \(request.target) written back is refused: \(error)")
        }
    }

    /// Every byte outside unreserved characters as %XX.
    static func escape(_ segment: Substring) -> String {
        var text = ""
        for byte in segment.utf8 {
            let plain =
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            text += plain ? String(UnicodeScalar(byte)) : "%" + String(byte >> 4, radix: 16) + String(byte & 15, radix: 16)
        }
        return text
    }
}
