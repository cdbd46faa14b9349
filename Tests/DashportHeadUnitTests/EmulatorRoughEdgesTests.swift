// Tests/DashportHeadUnitTests/EmulatorRoughEdgesTests.swift - the browse shell against a real
// server: a page past the end says so, and a children-changed push redraws the open list (issue 21).

import DashportEmulator
import DashportHeadUnit
import DashportServer
import DashportTestSupport
import Foundation
import Testing

@Suite(.serialized) struct EmulatorRoughEdgesTests {
    static func catalog(tabA: [String]) -> String {
        let tracks = ["a1", "a2", "a3", "a4", "a5"].map {
            #"{ "id": "\#($0)", "title": "Song \#($0)", "playable": true, "durationMs": 61000 }"#
        }
        let items =
            [#"{ "id": "tab-a", "title": "A", "browsable": true, "children": [\#(tabA.map { "\"\($0)\"" }.joined(separator: ","))] }"#]
            + tracks
        return #"{ "format": "dashport.catalog", "version": 1, "root": ["tab-a"], "items": [\#(items.joined(separator: ","))] }"#
    }

    /// A server on a catalog in a fresh folder, and a connected shell with pages of 2.
    static func withShell(_ body: (EmulatedShell, String) async throws -> Void) async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let path = temporary.path + "/catalog.json"
        try Data(Self.catalog(tabA: ["a1", "a2", "a3", "a4", "a5"]).utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        try await TestServer.with(stateDirectory: temporary.path + "/state", configure: { $0.catalog = path }) { test in
            let client = try await HeadUnitClient.connect(
                to: test.server.address, configuration: HeadUnitConfiguration().withDashportProfile(CarProfileOptions().profile).patient,
                identity: try TestTLS.carIdentity.get())
            let car = try EmulatedShell(client: client, options: BrowseShellOptions(pageSize: 2, expectTimeout: .seconds(30)))
            try await car.shell.start()
            try await body(car, path)
            await client.byeBye()
            _ = await client.closed(within: .seconds(20))
        }
    }

    @Test func aPagePastTheEndSaysThereIsNoSuchPageAndStays() async throws {
        try await Self.withShell { car, _ in
            try await car.shell.run(try EmulatorScript.parse("open tab-a\npage 3\nexpect Song a5\npage 4\n"))
            let lines = car.output.all
            #expect(lines.contains("! there is no page 4 (A has 3 pages, 5 items)"), "\(lines)")
            #expect(!lines.contains { $0.contains("(empty)") })
            #expect(lines.contains { $0.contains("Song a5  1:01") }, "rows show durations")
            // Still on page 3: its rows are the ones `play 1` means.
            try await car.shell.run(try EmulatorScript.parse("play 1\nexpect play Song a5"))
        }
    }

    @Test func aChildrenChangedPushRedrawsTheOpenList() async throws {
        try await Self.withShell { car, path in
            let interaction = Task { try await car.shell.interact(car.input) }
            car.type("open tab-a")
            try await eventually("the tab on screen") { car.output.all.contains { $0.contains("Song a2") } }
            #expect(!car.output.all.contains { $0.contains("Song a4") })
            try Data(Self.catalog(tabA: ["a4", "a1"]).utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            // Nothing typed: the push alone draws the list again, with the new content.
            try await eventually("the redrawn list") {
                let lines = car.output.all
                guard let push = lines.lastIndex(where: { $0.contains("children changed: tab-a") }) else { return false }
                return lines[push...].contains { $0.contains("Song a4") }
            }
            let lines = car.output.all
            #expect(lines.filter { $0 == "== A ==" }.count >= 2, "\(lines)")
            car.type("quit")
            try await interaction.value
        }
    }
}
