import Foundation
import Synchronization
import DashportTestSupport
import Testing
@testable import DashportServer

/// `dashport serve` from a binary copied out of the build tree serves the demo library it carries.
@Suite struct InstalledBinaryTests {
    static let root = ChildServer.root

    @Test func theEmbeddedDemoLibraryIsTheFixturesByteForByte() throws {
        let demo = Self.root.appendingPathComponent("Fixtures/demo")
        var onDisk: [String] = []
        let walker = FileManager.default.enumerator(atPath: demo.path)
        while let path = walker?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: demo.appendingPathComponent(path).path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                onDisk.append(path)
            }
        }
        #expect(onDisk.sorted() == EmbeddedDemoLibrary.files.map(\.path), "run tools/generate/embed-demo")
        for (path, base64) in EmbeddedDemoLibrary.files {
            #expect(
                Data(base64Encoded: base64) == FileManager.default.contents(atPath: demo.appendingPathComponent(path).path),
                "\(path) differs from Fixtures/demo: run tools/generate/embed-demo")
        }
    }

    @Test func aCopiedBinaryServesTheDemoLibraryItCarries() async throws {
        let built = try ChildServer.built()
        let carBinary = try ChildServer.built("dashport-hu")
        let place = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-installed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: place) }
        try FileManager.default.createDirectory(at: place.appendingPathComponent("bin"), withIntermediateDirectories: true)
        let copy = place.appendingPathComponent("bin/dashport").path
        try FileManager.default.copyItem(atPath: built, toPath: copy)

        // Run from its own directory, with no hint where the source tree's demo library is.
        let server = try await ChildServer.start(
            copy, ["serve", "--listen", "127.0.0.1:0", "--state-dir", place.appendingPathComponent("state").path],
            in: place, keepingLog: true, unsetting: ["DASHPORT_DEMO_CATALOG"])
        defer { if server.process.isRunning { server.process.terminate() } }
        let address = server.address

        let script = place.appendingPathComponent("browse.txt").path
        try "open 2\nexpect Northern Lights\nquit\n".write(toFile: script, atomically: true, encoding: .utf8)
        let car = Process()
        car.executableURL = URL(fileURLWithPath: carBinary)
        car.arguments = ["browse", address, "--script", script, "--timeout", "30"]
        let carOutput = Pipe()
        car.standardOutput = carOutput
        try car.run()
        let screens = await onAThread { String(decoding: carOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
        await onAThread { car.waitUntilExit() }
        let log = await server.stop()

        #expect(car.terminationStatus == 0, "\(screens)")
        #expect(screens.contains("Northern Lights · Aurora Fields"))
        #expect(log.contains("catalog=\(place.appendingPathComponent("state/demo-library/catalog.json").path)"), "\(log)")
    }
}
