import DashportHTTP
import DashportTestSupport
import DashportWebEmulator
import Foundation
import Testing

/// The web glue without a browser: the page and its files, the fixed routes, the event stream
/// after linking to a real server, commands that change the session, a profile switch.
@Suite(.serialized) struct WebEmulatorTests {
    @Test func thePageItsFilesAndNothingElse() async throws {
        try await WebHarness.with { harness in
            let page = try await RawHTTPClient.get("/", from: harness.address)
            #expect(page.status == 200)
            #expect(page.head.contains("Content-Type: text/html; charset=utf-8"))
            #expect(page.head.contains("Content-Security-Policy: default-src 'self'"))
            let html = String(decoding: page.body, as: UTF8.self)
            for id in [
                "tabs", "screen", "now-playing", "scrubber", "search-field", "connection", "settings", "record-button", "mute-button",
            ] {
                #expect(html.contains("data-testid=\"\(id)\""), "\(id)")
            }
            #expect(!html.contains("http://") && !html.contains("https://"), "the page fetches nothing from outside")
            let script = try await RawHTTPClient.get("/app.js", from: harness.address)
            #expect(script.status == 200 && script.head.contains("text/javascript"))
            #expect(String(decoding: script.body, as: UTF8.self).contains("new EventSource('/events')"))
            #expect(try await RawHTTPClient.get("/app.css", from: harness.address).status == 200)
            #expect(try await RawHTTPClient.get("/etc/passwd", from: harness.address).status == 404)
            #expect(try await RawHTTPClient.get("/app.js/..%2f..%2fPackage.swift", from: harness.address).status == 400)
            #expect(try await RawHTTPClient.get("/%2e%2e/Package.swift", from: harness.address).status == 400)
            #expect(try await RawHTTPClient.get("/api/play", from: harness.address).status == 405)
            let form = try await RawHTTPClient.connect(to: harness.address)
            form.send(
                "POST /api/command HTTP/1.1\r\nHost: \(harness.address)\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
            )
            #expect(RawHTTPClient.split(Array(try await form.waitForClose().utf8)).status == 415)
        }
    }

    @Test func theEventStreamCarriesTheConnectionAndTheTabsAfterLinking() async throws {
        try await WebHarness.with { harness in
            let events = try await harness.events()
            let text = try await events.waitFor("event: tabs\n")
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream"))
            try await events.waitFor("\"state\":\"linked\"")
            let all = events.received.value.text
            #expect(all.contains("\"tls\":\"TLSv1.2 "))
            #expect(all.contains("\"phoneName\":\"Dashport on Linux\""))
            for tab in ["Recent", "Albums", "Artists", "Podcasts"] { #expect(all.contains("\"title\":\"\(tab)\""), "\(tab)") }
            let state = try await harness.getJSON("/api/state")
            let tabs = try #require(state["tabs"] as? [String: Any])
            #expect((tabs["items"] as? [Any])?.count == 4)
            #expect(tabs["cap"] as? Int == 4)
        }
    }

    @Test func playAndPauseFromThePageChangeTheSession() async throws {
        try await WebHarness.with { harness in
            try await harness.waitUntilLinked()
            let events = try await harness.events()
            try await events.waitFor("event: tabs\n")
            let albums = try await harness.getJSON("/api/children?parent=tab-albums")
            #expect(albums["outcome"] as? String == "items")
            let album = try #require((albums["items"] as? [[String: Any]])?.first)
            let albumId = try #require(album["id"] as? String)
            let tracks = try await harness.getJSON("/api/children?parent=\(albumId)")
            let track = try #require((tracks["items"] as? [[String: Any]])?.first { $0["playable"] as? Bool == true })
            let trackId = try #require(track["id"] as? String)
            let played = try await harness.postJSON("/api/play", "{\"id\":\"\(trackId)\",\"parent\":\"\(albumId)\"}")
            #expect(played["accepted"] as? Bool == true)
            try await events.waitFor("\"status\":\"playing\"")
            try await events.waitFor("\"id\":\"\(trackId)\"")
            let paused = try await harness.postJSON("/api/command", "{\"command\":\"pause\"}")
            #expect(paused["accepted"] as? Bool == true)
            try await events.waitFor("\"status\":\"paused\"")
            let unknown = try await RawHTTPClient.post("/api/command", json: "{\"command\":\"fly\"}", to: harness.address)
            #expect(unknown.status == 400)
        }
    }

    @Test func theCarsSoundStreamsToThePageWhilePlaying() async throws {
        try await WebHarness.with { harness in
            try await harness.waitUntilLinked()
            let audio = try await RawHTTPClient.connect(to: harness.address)
            audio.send("GET /audio HTTP/1.1\r\nHost: \(harness.address)\r\n\r\n")
            let head = try await audio.waitFor("\r\n\r\n")
            #expect(head.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream"))
            #expect(head.contains("X-Dashport-Audio: pcm s16le 48000 2"))
            try await eventually("the page's audio listener") { harness.car.audio.listenerCount == 1 }
            // Before anything plays, the body starts with one silent frame (Firefox's fetch resolves
            // only with a first body byte).
            let opened = try await audio.received.wait("a silent frame after the head, before anything plays") { state in
                Self.bodyStart(state.bytes).map { state.bytes.count >= $0 + 4 } ?? false
            }
            let start = try #require(Self.bodyStart(opened.bytes))
            #expect(Array(opened.bytes[start..<start + 4]) == WebAudioFan.openingSilence)
            #expect(WebAudioFan.openingSilence == [0, 0, 0, 0])
            let tracks = try await harness.getJSON("/api/children?parent=album-northern-lights")
            let track = try #require((tracks["items"] as? [[String: Any]])?.first?["id"] as? String)
            _ = try await harness.postJSON("/api/play", "{\"id\":\"\(track)\",\"parent\":\"album-northern-lights\"}")
            // A quarter second of 48 kHz stereo 16-bit PCM past the head.
            let bytes = try await audio.received.wait("PCM on /audio", timeout: .seconds(120)) { $0.bytes.count > head.utf8.count + 48_000 }
            #expect(bytes.bytes.count > 48_000)
            #expect(harness.car.audio.samplesHeard > 0)
        }
    }

    /// Where the body begins: past the head's blank line, nil before it arrived.
    static func bodyStart(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first { bytes[$0..<$0 + 4].elementsEqual([13, 10, 13, 10]) }.map { $0 + 4 }
    }

    @Test func aCoverAtTheAskedSize() async throws {
        try await WebHarness.with { harness in
            try await harness.waitUntilLinked()
            let albums = try await harness.getJSON("/api/children?parent=tab-albums")
            let key = try #require((albums["items"] as? [[String: Any]])?.compactMap { $0["artworkKey"] as? String }.first)
            let art = try await RawHTTPClient.get("/art?key=\(key)&w=96&h=96", from: harness.address)
            #expect(art.status == 200)
            #expect(art.head.contains("Content-Type: image/"))
            #expect(art.head.contains("X-Dashport-Image-Size: 96x96"), "\(art.head)")
            #expect(art.body.count > 100)
            #expect(try await RawHTTPClient.get("/art?key=nope&w=96&h=96", from: harness.address).status != 200)
        }
    }

    @Test func aProfileSwitchReconnectsWithTheNewTabCap() async throws {
        try await WebHarness.with { harness in
            try await harness.waitUntilLinked()
            let events = try await harness.events()
            try await events.waitFor("event: tabs\n")
            let settings = try await harness.postJSON("/api/settings", "{\"maxTabs\":2,\"legacy\":true}")
            #expect(settings["maxTabs"] as? Int == 2)
            #expect(settings["legacy"] as? Bool == true)
            try await events.waitFor("\"state\":\"reconnecting\"")
            try await events.waitFor("event: tabs\n", count: 2)
            let state = try await harness.getJSON("/api/state")
            let tabs = try #require(state["tabs"] as? [String: Any])
            #expect(tabs["cap"] as? Int == 2)
            #expect((tabs["items"] as? [Any])?.count == 2)
        }
    }
}
