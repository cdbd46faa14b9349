import DashportHTTP
import Testing

/// ``HTTPRequestParser``: what it reads, what it refuses and with which status.
@Suite struct HTTPParserTests {
    static func parse(_ text: String, limits: HTTPLimits = HTTPLimits()) -> Result<[HTTPRequest], HTTPParseError> {
        var parser = HTTPRequestParser(limits: limits)
        parser.append(Array(text.utf8))
        var requests: [HTTPRequest] = []
        do throws(HTTPParseError) {
            while let request = try parser.next() { requests.append(request) }
            return .success(requests)
        } catch {
            return .failure(error)
        }
    }

    static func status(_ text: String, limits: HTTPLimits = HTTPLimits()) -> Int? {
        if case .failure(let error) = parse(text, limits: limits) { return error.status }
        return nil
    }

    @Test func aGetWithQueryAndHeaders() throws {
        let requests = try Self.parse(
            "GET /api/children?parent=albums%2F1&page=2&q=a+b HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-A:  spaced \t\r\n\r\n"
        ).get()
        let request = try #require(requests.first)
        #expect(requests.count == 1)
        #expect(request.method == "GET")
        #expect(request.path == "/api/children")
        #expect(request.queryValue("parent") == "albums/1")
        #expect(request.queryValue("page") == "2")
        #expect(request.queryValue("q") == "a b")
        #expect(request.header("x-a") == "spaced")
        #expect(request.header("HOST") == "127.0.0.1:8080")
        #expect(request.keepAlive)
    }

    @Test func pipelinedRequestsWithBodiesInAnySplit() throws {
        let text =
            "POST /api/play HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
            + "GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n" + "GET /x HTTP/1.0\r\n\r\n"
        let bytes = Array(text.utf8)
        var parser = HTTPRequestParser()
        var requests: [HTTPRequest] = []
        for byte in bytes {
            parser.append([byte])
            while let request = try parser.next() { requests.append(request) }
        }
        #expect(requests.map(\.path) == ["/api/play", "/", "/x"])
        #expect(requests[0].body == Array("hello".utf8))
        #expect(requests.map(\.keepAlive) == [true, false, false])
        #expect(requests[2].minorVersion == 0)
        #expect(parser.isIdle)
        #expect(try Self.parse(text).get() == requests)
    }

    @Test func malformedRequestLinesAre400Or505() {
        #expect(Self.status("GET /\r\nHost: h\r\n\r\n") == 400)
        #expect(Self.status("GET  / HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(Self.status("G(T / HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(Self.status("GET / HTTP/2.0\r\nHost: h\r\n\r\n") == 505)
        #expect(Self.status("GET / FTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(Self.status("GET / HTTP/1.1\nHost: h\n\n") == 400)  // bare LF
        #expect(Self.status("GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n") == 400)  // bare CR
        #expect(Self.status("GET / HTTP/1.1\r\n\r\n") == 400)  // no Host
        #expect(Self.status("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") == 400)
        #expect(Self.status("GET /a\u{7F} HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
    }

    @Test func badHeadersAre400() {
        #expect(Self.status("GET / HTTP/1.1\r\nHost: h\r\nX : y\r\n\r\n") == 400)
        #expect(Self.status("GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n") == 400)
        #expect(Self.status("GET / HTTP/1.1\r\nHost: h\r\nX: y\r\n folded\r\n\r\n") == 400)
        #expect(Self.status("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{1}b\r\n\r\n") == 400)
    }

    @Test func hugeHeadsAre431Or414() {
        let limits = HTTPLimits(maxHeadBytes: 256, maxBodyBytes: 16, maxHeaderCount: 4)
        #expect(Self.status("GET /\(String(repeating: "a", count: 300)) HTTP/1.1\r\n", limits: limits) == 414)
        #expect(Self.status("GET / HTTP/1.1\r\nHost: h\r\nX: \(String(repeating: "a", count: 300))\r\n\r\n", limits: limits) == 431)
        let many = (0..<5).map { "X\($0): y\r\n" }.joined()
        #expect(Self.status("GET / HTTP/1.1\r\nHost: h\r\n\(many)\r\n", limits: limits) == 431)
        // Exactly at the limit is read: head bytes counted with their CR LFs.
        let head = "GET / HTTP/1.1\r\nHost: h\r\n"
        let pad = String(repeating: "b", count: 256 - head.utf8.count - "P: \r\n\r\n".utf8.count)
        #expect(Self.status(head + "P: \(pad)\r\n\r\n", limits: limits) == nil)
        #expect(Self.status(head + "P: \(pad)b\r\n\r\n", limits: limits) == 431)
    }

    @Test func bodyLengthRules() {
        let limits = HTTPLimits(maxHeadBytes: 1024, maxBodyBytes: 16, maxHeaderCount: 8)
        #expect(Self.status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 17\r\n\r\n", limits: limits) == 413)
        #expect(Self.status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999\r\n\r\n", limits: limits) == 413)
        #expect(Self.status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", limits: limits) == 400)
        #expect(Self.status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1x\r\n\r\n", limits: limits) == 400)
        #expect(Self.status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", limits: limits) == 400)
        #expect(Self.status("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n", limits: limits) == 411)
        #expect(
            Self.status("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", limits: limits) == 400)
        #expect(Self.status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 16\r\n\r\n0123456789abcdef", limits: limits) == nil)
    }

    @Test func pathsAreNormalisedAndNeverClimbAboveTheRoot() throws {
        func path(_ target: String) -> String? { try? HTTPRequestTarget.parse(target).0 }
        #expect(path("/") == "/")
        #expect(path("/a/./b/../c") == "/a/c")
        #expect(path("//a///b/") == "/a/b")
        #expect(path("/a/%2e%2e/b") == "/b")
        #expect(path("/%41%42") == "/AB")
        #expect(path("/..") == nil)
        #expect(path("/../etc/passwd") == nil)
        #expect(path("/%2e%2e/etc/passwd") == nil)
        #expect(path("/%2E%2E/%2E%2E/x") == nil)
        #expect(path("/a/%2f..%2fb") == nil)  // an escaped separator
        #expect(path("/a%5c..%5cb") == nil)  // a backslash
        #expect(path("/a%00") == nil)
        #expect(path("/%zz") == nil)
        #expect(path("/%4") == nil)
        #expect(path("/%ff") == nil)  // not UTF-8
        #expect(path("http://evil.example/") == nil)  // absolute form
        #expect(path("127.0.0.1:80") == nil)  // authority form
        #expect(path("*") == nil)
        #expect(path("/a#frag") == nil)
        #expect(throws: HTTPParseError.self) { try HTTPRequestTarget.parse("/a?id=x%00y") }  // a NUL would cut the id on the wire
        #expect(try HTTPRequestTarget.parse("/a?q=%C3%A9t%C3%A9+x&e=").1.map(\.value) == ["été x", ""])
        #expect(Self.status("GET http://127.0.0.1/ HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(Self.status("GET /%2e%2e/x HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
    }

    @Test func aFailedParserStaysFailed() {
        var parser = HTTPRequestParser()
        parser.append(Array("BAD\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8))
        #expect(throws: HTTPParseError.self) { try parser.next() }
        #expect(throws: HTTPParseError.self) { try parser.next() }
    }

    @Test func responsesAndEventsEncode() {
        let response = HTTPResponse(status: 404, headers: [HTTPField("X-Bad", "a\r\nInjected: 1")], body: Array("no".utf8))
        let text = String(decoding: response.encoded(keepAlive: true), as: UTF8.self)
        #expect(text == "HTTP/1.1 404 Not Found\r\nX-Bad: a  Injected: 1\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nno")
        #expect(
            String(decoding: ServerSentEvents.event("tabs", data: "{\"a\":1}\r\nx\ry"), as: UTF8.self)
                == "event: tabs\ndata: {\"a\":1}\ndata: x\ndata: y\n\n")
        #expect(String(decoding: ServerSentEvents.event(nil, data: ""), as: UTF8.self) == "data: \n\n")
    }
}
