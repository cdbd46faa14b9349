import DashportTestSupport
import Foundation
import Glibc
import Testing
import DashportClock
import DashportControl
import DashportLog
@testable import DashportServer

/// Where the control socket goes (issue 21, item 6): the state directory by default, a runtime
/// directory when the state directory cannot hold a socket, and no socket at all (a warning, the
/// server still serving) rather than a fatal start.
@Suite("Control socket placement", .serialized)
struct ControlSocketPlacementTests {
    @Test func aStateDirectoryThatCannotHoldASocketMovesItToTheRuntimeDirectory() async throws {
        try await TestServer.with { server in
            // A socket address holds at most 107 bytes of path: this state directory is longer.
            let long = server.stateDirectory + "/" + String(repeating: "d", count: 120)
            try FileManager.default.createDirectory(atPath: long, withIntermediateDirectories: true)
            let runtime = server.stateDirectory + "/run"
            try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
            let service = ControlService(
                registry: ConnectionRegistry(), core: server.server.core, reloader: nil, address: server.server.address,
                fingerprint: "-", stateDirectory: long, startedAt: Date())
            let sink = CollectingSink()
            let control = try #require(
                try ControlServer.open(
                    explicit: nil, stateDirectory: long, service: service, logger: Logger(label: "t", level: .info, sink: sink),
                    clock: SystemClock(), runtimeDirectory: runtime))
            defer { control.stop() }
            let expected = ControlSocketLocation.candidates(stateDirectory: long, runtimeDirectory: runtime)[1]
            #expect(control.path == expected)
            #expect(expected.hasPrefix(runtime + "/dashport/control-") && expected.hasSuffix(".sock"))
            #expect(sink.contains(.notice, "the state directory cannot hold the control socket"))
            // `dashport ctl --state-dir LONG` finds it there.
            #expect(ControlSocketLocation.find(stateDirectory: long, runtimeDirectory: runtime) == expected)
            #expect(try await ControlClient.send(["cars"], socket: expected) == .ok([]))
        }
    }

    @Test func noControlSocketIsAWarningAndTheServerStillServes() async throws {
        try await TestServer.with(configure: { $0.controlSocket = "/nonexistent-dashport-dir/control.sock" }) { server in
            #expect(server.server.controlSocketPath == nil)
            #expect(server.log.contains(.warning, "no control socket could be made; serving without one"))
            let car = try await TestCar.connect(to: server.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
            try await car.waitUntil("server hello") { $0.messages(on: 16).contains { $0.id == 0x8001 } }
        }
    }

    @Test func anExplicitControlSocketIsUsedAndFoundThroughTheConfiguration() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-sock-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/ctl.sock"
        try await TestServer.with(configure: { $0.controlSocket = path }) { server in
            #expect(server.server.controlSocketPath == path)
            #expect(try await ControlClient.send(["cars"], socket: path) == .ok([]))
            let parsed = try ConfigurationParser.parse(arguments: ["--control-socket", path, "--state-dir", server.stateDirectory])
            #expect(parsed.controlSocket == path)
        }
    }
}
