import DashportEmulator
import DashportHTTP
import DashportHeadUnit
import DashportLog
import DashportServer
import DashportTestSupport
import DashportTransport
import DashportWebEmulator
import Foundation
import Testing

/// A real Dashport server (``TestServer``, the demo library), a ``WebCar`` linked to it over TCP,
/// and the page's ``HTTPServer`` on 127.0.0.1:0: everything `dashport-hu web` runs but the browser.
struct WebHarness: Sendable {
    let phone: TestServer
    let car: WebCar
    let web: HTTPServer
    let recordDirectory: String

    var address: ListenAddress { web.address }

    static func with(
        settings: WebCarSettings = WebCarSettings(), stateDirectory: String? = nil,
        configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (WebHarness) async throws -> Void
    ) async throws {
        try await TestServer.with(stateDirectory: stateDirectory, configure: configure) { phone in
            let identity = try TestTLS.carIdentity.get()
            let address = phone.server.address
            let car = WebCar(
                connector: { request in
                    try await HeadUnitClient.connect(
                        to: address, configuration: request.configuration, identity: identity, timeout: .seconds(30),
                        tap: request.tap, audioOutput: request.audioOutput)
                },
                configuration: WebCar.defaultConfiguration.patient, settings: settings, timeout: .seconds(30), logger: .silent)
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let routes = WebRoutes(car: car, recordDirectory: directory.path)
            let web = try HTTPServer.start(
                HTTPServerConfiguration(listen: try #require(ListenAddress(parsing: "127.0.0.1:0"))), logger: .silent
            ) { request in await routes.handle(request) }
            await car.start()
            let harness = WebHarness(phone: phone, car: car, web: web, recordDirectory: directory.path)
            do {
                try await body(harness)
            } catch {
                await car.stop()
                web.shutdown()
                throw error
            }
            await car.stop()
            web.shutdown()
        }
    }

    /// An open `/events` stream.
    func events() async throws -> RawHTTPClient {
        let client = try await RawHTTPClient.connect(to: address)
        client.send("GET /events HTTP/1.1\r\nHost: \(address)\r\nAccept: text/event-stream\r\n\r\n")
        return client
    }

    /// The JSON of a GET, parsed.
    func getJSON(_ target: String) async throws -> [String: Any] {
        let answer = try await RawHTTPClient.get(target, from: address)
        #expect(answer.status == 200, "\(target): \(answer.head) \(String(decoding: answer.body, as: UTF8.self))")
        return try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
    }

    func postJSON(_ target: String, _ json: String) async throws -> [String: Any] {
        let answer = try await RawHTTPClient.post(target, json: json, to: address)
        #expect(answer.status == 200, "\(target): \(answer.head) \(String(decoding: answer.body, as: UTF8.self))")
        return try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
    }

    /// Waits until the car is linked (the page's `tabs` would follow).
    func waitUntilLinked() async throws {
        try await eventually("the web car to link", timeout: .seconds(120)) { await car.linkedSession != nil }
    }
}
