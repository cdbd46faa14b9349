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
        server.arguments = [
            "serve", "--listen", "127.0.0.1:0", "--state-dir", state,
            "--catalog", library.appendingPathComponent("catalog.json").path,
        ]
        let output = Pipe()
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer { if server.isRunning { server.terminate() } }
        // The one stdout line, "dashport: listening on ...", comes once the control socket is up.
        let line = await onAThread { String(decoding: output.fileHandleForReading.availableData, as: UTF8.self) }
        try #require(line.contains("listening"), "\(line)")
        let socket = ControlClient.socketPath(stateDirectory: state)

        #expect(kill(server.processIdentifier, SIGHUP) == 0)
        try await eventually("the SIGHUP reload shows in the server's status", timeout: .seconds(60), poll: .milliseconds(50)) {
            guard case .ok(let lines) = try await ControlClient.send(["status"], socket: socket) else { return false }
            return lines.contains { $0.contains("(SIGHUP)") }
        }
        #expect(server.isRunning, "SIGHUP must not stop the server")
        server.terminate()
        await onAThread { server.waitUntilExit() }
    }
}
