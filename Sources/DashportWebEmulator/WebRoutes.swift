import DashportEmulator
public import DashportHTTP
import DashportHeadUnit
import DashportMessages
import FoundationEssentials

/// The fixed route table of the page's server: the page's three files (embedded in the binary),
/// the event and audio streams, covers, and the JSON API. Any other path is 404; nothing is ever
/// read from the filesystem. Every route is listed in the DocC article *WebEmulator*.
public struct WebRoutes: Sendable {
    public let car: WebCar
    /// Where the record button writes its `.jsonl` files.
    public let recordDirectory: String
    /// Items per page asked for when the page does not say (`--page-size`); nil: the server's choice.
    public let pageSize: UInt32?

    public init(car: WebCar, recordDirectory: String, pageSize: UInt32? = nil) {
        self.car = car
        self.recordDirectory = recordDirectory
        self.pageSize = pageSize
    }

    public func handle(_ request: HTTPRequest) async -> HTTPReply {
        switch (request.method, request.path) {
        case ("GET", "/"), ("HEAD", "/"): return .response(WebAssets.page)
        case ("GET", "/app.css"): return .response(WebAssets.stylesheet)
        case ("GET", "/app.js"): return .response(WebAssets.script)
        case ("GET", "/events"):
            return .stream(head: ServerSentEvents.responseHead()) { stream in Task { await car.subscribe(stream) } }
        case ("GET", "/audio"):
            return .stream(head: WebAudioFan.responseHead()) { stream in car.audio.add(stream) }
        case ("GET", "/art"): return .response(await artwork(request))
        case ("GET", "/api/state"): return .response(Self.json(.object(await car.snapshot())))
        case ("GET", "/api/children"), ("GET", "/api/search"), ("GET", "/api/item"): return .response(await browse(request))
        case ("POST", "/api/play"), ("POST", "/api/command"), ("POST", "/api/settings"), ("POST", "/api/record"),
            ("POST", "/api/reconnect"):
            guard (request.header("content-type") ?? "").lowercased().hasPrefix("application/json") else {
                return .response(Self.error(415, "send the command as Content-Type: application/json"))
            }
            return .response(await post(request))
        default:
            let known = [
                "/", "/app.css", "/app.js", "/events", "/audio", "/art", "/api/state", "/api/children", "/api/search", "/api/item",
            ]
            let posts = ["/api/play", "/api/command", "/api/settings", "/api/record", "/api/reconnect"]
            if known.contains(request.path) || posts.contains(request.path) {
                var response = Self.error(405, "\(request.method) is not served at \(request.path)")
                response.headers.append(HTTPField("Allow", posts.contains(request.path) ? "POST" : "GET"))
                return .response(response)
            }
            return .response(Self.error(404, "no such page: \(request.path)"))
        }
    }

    // MARK: Browse and covers

    private func browse(_ request: HTTPRequest) async -> HTTPResponse {
        guard let session = await car.linkedSession else { return Self.notLinked }
        let page = request.queryValue("page").flatMap { UInt32($0) }
        let pageSize = request.queryValue("pageSize").flatMap { UInt32($0) } ?? self.pageSize
        let kind: MediaChannelRequestKind
        switch request.path {
        case "/api/children":
            guard let parent = request.queryValue("parent"), !parent.isEmpty else { return Self.error(400, "parent= is missing") }
            kind = .getChildren(parentId: parent, page: page, pageSize: pageSize)
        case "/api/search":
            guard let query = request.queryValue("q") else { return Self.error(400, "q= is missing") }
            kind = .search(query: query, page: page, pageSize: pageSize)
        default:
            guard let id = request.queryValue("id"), !id.isEmpty else { return Self.error(400, "id= is missing") }
            kind = .getItem(id: id)
        }
        do {
            guard case .browse(let result) = try await session.request(kind) else { return Self.error(502, "not a browse answer") }
            return Self.json(.browse(result))
        } catch {
            return Self.error(504, "\(error)")
        }
    }

    /// `/art?key=K&w=W&h=H`: the cover through GET_ARTWORK, fitted into W × H (the layout's size).
    private func artwork(_ request: HTTPRequest) async -> HTTPResponse {
        guard let key = request.queryValue("key"), !key.isEmpty else { return Self.error(400, "key= is missing") }
        let width = request.queryValue("w").flatMap { UInt32($0) }.map { min($0, 2048) }
        let height = request.queryValue("h").flatMap { UInt32($0) }.map { min($0, 2048) }
        let fallback = request.queryValue("fallback") == "1"
        guard let session = await car.linkedSession else {
            return fallback ? Self.placeholder(width: width, height: height, why: "notLinked") : Self.notLinked
        }
        do {
            guard case .artwork(let result) = try await session.request(.getArtwork(key: key, width: width, height: height)) else {
                return Self.error(502, "not an artwork answer")
            }
            switch result.outcome {
            case .image(let image):
                let type =
                    ["image/jpeg", "image/png", "image/webp", "image/gif"].contains(image.mimeType)
                    ? image.mimeType : "application/octet-stream"
                return HTTPResponse(
                    status: 200,
                    headers: [
                        HTTPField("Content-Type", type), HTTPField("Cache-Control", "private, max-age=300"),
                        HTTPField("X-Dashport-Image-Size", "\(image.width)x\(image.height)"),
                    ] + HTTPResponse.safetyHeaders,
                    body: image.data)
            case .error(let error):
                if fallback { return Self.placeholder(width: width, height: height, why: "\(error.code)") }
                return Self.error(
                    error.code == .notFound ? 404 : 502, "artwork \(key): \(error.code)" + (error.message.map { ": \($0)" } ?? ""))
            case nil:
                return fallback
                    ? Self.placeholder(width: width, height: height, why: "noOutcome")
                    : Self.error(502, "artwork \(key): the answer carries no outcome")
            }
        } catch {
            return fallback ? Self.placeholder(width: width, height: height, why: "\(error)") : Self.error(504, "\(error)")
        }
    }

    // MARK: Answers

    static func json(_ value: WebJSON, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: value.bytes)
    }

    static func error(_ status: Int, _ message: String) -> HTTPResponse {
        json(.object(["error": .string(message)]), status: status)
    }

    /// A grey square in place of a cover the phone could not give (`&fallback=1`, as the page asks):
    /// a car draws a placeholder, and the browser logs no failed load. The reason is in a header.
    static func placeholder(width: UInt32?, height: UInt32?, why: String) -> HTTPResponse {
        let (w, h) = (width ?? 256, height ?? width ?? 256)
        let svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(w)\" height=\"\(h)\"><rect width=\"100%\" height=\"100%\" fill=\"#8884\"/></svg>"
        return HTTPResponse(
            status: 200, contentType: "image/svg+xml", body: Array(svg.utf8), headers: [HTTPField("X-Dashport-Artwork-Error", why)])
    }

    static let notLinked = error(503, "the car is not linked to the phone right now (connecting or reconnecting)")
}
