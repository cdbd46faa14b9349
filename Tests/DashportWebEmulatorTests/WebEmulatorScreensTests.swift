import DashportServer
import DashportTestSupport
import DashportWebEmulator
import Foundation
import Testing

/// The screens behind the page's routes: every BrowseError screen and the legacy car's, search,
/// a children-changed push after a catalog edit, and a recording from the page.
@Suite(.serialized) struct WebEmulatorScreensTests {
    static let locked = [
        ("locked-members-hour", "authenticationExpired"), ("locked-studio-extra", "premiumAccountRequired"),
        ("locked-matchday-live", "notAvailableInRegion"), ("locked-after-dark", "parentalControlRestricted"),
        ("locked-road-notes-video", "notSupported"),
    ]

    @Test func everyErrorScreenWithItsResolutionAndTheLegacyCarsEmptyPages() async throws {
        try await WebHarness.with { harness in
            try await harness.waitUntilLinked()
            for (id, code) in Self.locked {
                let result = try await harness.getJSON("/api/children?parent=\(id)")
                #expect(result["outcome"] as? String == "error", "\(id)")
                #expect(result["code"] as? String == code, "\(id)")
                #expect(!((result["message"] as? String) ?? "").isEmpty)
                #expect(((result["resolution"] as? [String: Any])?["label"] as? String).map { !$0.isEmpty } == true, "\(id)")
            }
            _ = try await harness.postJSON("/api/settings", "{\"legacy\":true}")
            try await eventually("the legacy link", timeout: .seconds(120)) {
                let legacy = await harness.car.settings.legacy
                return await harness.car.linkedSession != nil && legacy
            }
            let kept = try await harness.getJSON("/api/children?parent=locked-members-hour")
            #expect(kept["code"] as? String == "authenticationExpired")
            let dropped = try await harness.getJSON("/api/children?parent=locked-matchday-live")
            #expect(dropped["outcome"] as? String == "items")
            #expect((dropped["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func searchFindsAndAnEmptyQueryIsRefused() async throws {
        try await WebHarness.with { harness in
            try await harness.waitUntilLinked()
            let found = try await harness.getJSON("/api/search?q=night")
            #expect(found["outcome"] as? String == "items")
            #expect(((found["items"] as? [Any])?.count ?? 0) > 0)
            #expect(try await RawHTTPClient.get("/api/search", from: harness.address).status == 400)
        }
    }

    @Test func aCatalogEditPushesChildrenChanged() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let path = temporary.path + "/catalog.json"
        func catalog(_ children: [String]) -> String {
            let tracks = ["a1", "a2", "a3"].map { #"{ "id": "\#($0)", "title": "Song \#($0)", "playable": true, "durationMs": 60000 }"# }
            let tab =
                #"{ "id": "tab-a", "title": "A", "browsable": true, "children": [\#(children.map { "\"\($0)\"" }.joined(separator: ","))] }"#
            return
                #"{ "format": "dashport.catalog", "version": 1, "root": ["tab-a"], "items": [\#(([tab] + tracks).joined(separator: ","))] }"#
        }
        try Data(catalog(["a1", "a2"]).utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        try await WebHarness.with(stateDirectory: temporary.path + "/state", configure: { $0.catalog = path }) { harness in
            let events = try await harness.events()
            try await events.waitFor("\"title\":\"A\"")
            let before = try await harness.getJSON("/api/children?parent=tab-a")
            #expect((before["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["a1", "a2"])
            try Data(catalog(["a3", "a1"]).utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            try await events.waitFor("event: childrenChanged\ndata: {\"parentId\":\"tab-a\"}")
            let after = try await harness.getJSON("/api/children?parent=tab-a")
            #expect((after["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["a3", "a1"])
        }
    }

    @Test func theRecordButtonWritesASessionRecording() async throws {
        try await WebHarness.with { harness in
            try await harness.waitUntilLinked()
            let started = try await harness.postJSON("/api/record", "{\"on\":true}")
            #expect(started["on"] as? Bool == true)
            let path = try #require(started["path"] as? String)
            #expect(path.hasPrefix(harness.recordDirectory + "/dashport-web-") && path.hasSuffix(".jsonl"))
            try await eventually("the recorded link", timeout: .seconds(120)) { await harness.car.linkedSession != nil }
            _ = try await harness.getJSON("/api/children?parent=tab-albums")
            let stopped = try await harness.postJSON("/api/record", "{\"on\":false}")
            #expect(stopped["path"] as? String == path)
            #expect((stopped["messages"] as? Int ?? 0) > 10)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.hasPrefix("{\"format\":\"dashport-session\""))
            #expect(text.contains("\"name\":\"getChildren\""))
            #expect(text.contains("\"name\":\"byebyeRequest\""), "the recording ends with the bye-bye")
            #expect(try await RawHTTPClient.post("/api/record", json: "{\"on\":false}", to: harness.address).status == 409)
        }
    }
}
