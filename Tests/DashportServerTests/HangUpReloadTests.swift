import DashportTestSupport
import Foundation
import Glibc
import DashportControl
import Testing
@testable import DashportServer

/// SIGHUP reloads the catalog of a running `dashport serve` (design "Content providers"), as the
/// real binary handles it: the signal reaches the server, the reload runs, and the server keeps
/// serving (the default action of SIGHUP would have killed it).
@Suite struct HangUpReloadTests {
    @Test func sighupReloadsTheCatalogAndTheServerKeepsRunning() async throws {
        let built = InstalledBinaryTests.root.appendingPathComponent(".build/debug/dashport").path
        try #require(FileManager.default.isExecutableFile(atPath: built), "build dashport first (swift build)")
        let place = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-sighup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: place) }
        let library = place.appendingPathComponent("library")
        try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: InstalledBinaryTests.root.appendingPathComponent("Fixtures/demo"), to: library)
        let state = place.appendingPathComponent("state").path

        let server = Process()
        server.executableURL = URL(fileURLWithPath: built)
        server.arguments = ["serve", "--listen", "127.0.0.1:0", "--state-dir", state,
                            "--catalog", library.appendingPathComponent("catalog.json").path]
        let output = Pipe()
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer { if server.isRunning { server.terminate() } }
        // The one stdout line, "dashport: listening on ...", comes once the control socket is up.
        let line = await Task.detached { String(decoding: output.fileHandleForReading.availableData, as: UTF8.self) }.value
        try #require(line.contains("listening"), "\(line)")
        let socket = ControlClient.socketPath(stateDirectory: state)

        #expect(kill(server.processIdentifier, SIGHUP) == 0)
        try await eventually("the SIGHUP reload shows in the server's status", timeout: .seconds(60), poll: .milliseconds(50)) {
            guard case .ok(let lines) = try await ControlClient.send(["status"], socket: socket) else { return false }
            return lines.contains { $0.contains("(SIGHUP)") }
        }
        #expect(server.isRunning, "SIGHUP must not stop the server")
        server.terminate()
        server.waitUntilExit()
    }
}

/// The README's first command on a fresh machine: no `~/.local/state` yet. The default state
/// directory and its XDG parents are made (0700); the server does not refuse to start.
@Suite struct FreshHomeTests {
    @Test func theDefaultStateDirectoryIsMadeWithItsParentsOnAFreshHome() throws {
        let built = InstalledBinaryTests.root.appendingPathComponent(".build/debug/dashport").path
        try #require(FileManager.default.isExecutableFile(atPath: built), "build dashport first (swift build)")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-home-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: false)
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: built)
        tool.arguments = ["fingerprint"]
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        environment["XDG_STATE_HOME"] = nil
        tool.environment = environment
        let errors = Pipe()
        tool.standardOutput = FileHandle.nullDevice
        tool.standardError = errors
        try tool.run()
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        tool.waitUntilExit()
        #expect(tool.terminationStatus == 0, "\(log)")
        for path in [".local", ".local/state", ".local/state/dashport"] {
            var info = stat()
            #expect(stat(home.appendingPathComponent(path).path, &info) == 0 && info.st_mode & 0o777 == 0o700, "\(path)")
        }
    }
}
