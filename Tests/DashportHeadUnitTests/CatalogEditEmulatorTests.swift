import DashportTestSupport
import DashportEmulator
import DashportHeadUnit
import DashportLog
import DashportServer
import Foundation
import Testing

/// The emulator as a user runs it against a real server whose catalog is edited meanwhile: the
/// push arrives without a restart, and opening the list again shows the new content.
@Suite(.serialized) struct CatalogEditEmulatorTests {
    static func catalog(tabA: [String]) -> String {
        let tracks = ["a1", "a2", "a3"].map { #"{ "id": "\#($0)", "title": "Song \#($0)", "playable": true, "durationMs": 60000 }"# }
        let items =
            [
                #"{ "id": "tab-a", "title": "A", "browsable": true, "children": [\#(tabA.map { "\"\($0)\"" }.joined(separator: ","))] }"#,
                #"{ "id": "tab-b", "title": "B", "browsable": true, "children": ["a3"] }"#,
            ] + tracks
        return #"{ "format": "dashport.catalog", "version": 1, "root": ["tab-a", "tab-b"], "items": [\#(items.joined(separator: ","))] }"#
    }

    @Test func aCatalogEditReachesAConnectedEmulator() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.path
        try FileManager.default.createDirectory(atPath: directory + "/library", withIntermediateDirectories: true)
        let path = directory + "/library/catalog.json"
        try Data(Self.catalog(tabA: ["a1", "a2"]).utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        try await TestServer.with(stateDirectory: directory + "/state", configure: { $0.catalog = path }) { test in
            let server = test.server
            let client = try await HeadUnitClient.connect(
                to: server.address, configuration: HeadUnitConfiguration().withDashportProfile(CarProfileOptions().profile).patient,
                identity: try TestTLS.carIdentity.get())
            let car = try EmulatedShell(client: client, options: BrowseShellOptions(expectTimeout: .seconds(30)))
            let (output, shell) = (car.output, car.shell)
            try await shell.start()
            try await shell.run(try EmulatorScript.parse("open tab-a\nexpect Song a2\n"))
            #expect(!output.all.contains { $0.contains("Song a3") })

            try Data(Self.catalog(tabA: ["a3", "a1"]).utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            try await shell.run(
                try EmulatorScript.parse(
                    """
                    expect * children changed: tab-a
                    open tab-a
                    expect Song a3
                    """))
            let lines = output.all
            let reopened = try #require(lines.lastIndex { $0.contains("children changed: tab-a") })
            #expect(lines[reopened...].contains { $0.contains("Song a3") })
            #expect(!lines[reopened...].contains { $0.contains("Song a2") }, "a2 left the list")
            #expect(!lines.contains { $0.contains("children changed: tab-b") }, "tab B did not change")
            await client.byeBye()
            _ = await client.closed(within: .seconds(20))
        }
    }
}
