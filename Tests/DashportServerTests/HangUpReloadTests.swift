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
        let built = try ChildServer.built()
        let place = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-sighup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: place) }
        let library = place.appendingPathComponent("library")
        try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: InstalledBinaryTests.root.appendingPathComponent("Fixtures/demo"), to: library)
        let state = place.appendingPathComponent("state").path

        // The one stdout line, "dashport: listening on ...", comes once the control socket is up.
        let server = try await ChildServer.start(
            built,
            [
                "serve", "--listen", "127.0.0.1:0", "--state-dir", state,
                "--catalog", library.appendingPathComponent("catalog.json").path,
            ])
        defer { if server.process.isRunning { server.process.terminate() } }
        let socket = ControlClient.socketPath(stateDirectory: state)

        #expect(kill(server.process.processIdentifier, SIGHUP) == 0)
        try await eventually("the SIGHUP reload shows in the server's status", timeout: .seconds(60), poll: .milliseconds(50)) {
            guard case .ok(let lines) = try await ControlClient.send(["status"], socket: socket) else { return false }
            return lines.contains { $0.contains("(SIGHUP)") }
        }
        #expect(server.process.isRunning, "SIGHUP must not stop the server")
        await server.stop()
    }
}
