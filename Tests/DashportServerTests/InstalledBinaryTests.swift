import Foundation
import Synchronization
import DashportTestSupport
import Testing
@testable import DashportServer

/// `dashport serve` from a binary copied out of the build tree serves the demo library it carries.
@Suite struct InstalledBinaryTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

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
        let built = Self.root.appendingPathComponent(".build/debug/dashport").path
        let carBinary = Self.root.appendingPathComponent(".build/debug/dashport-hu").path
        try #require(FileManager.default.isExecutableFile(atPath: built), "build dashport first (swift build)")
        let place = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-installed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: place) }
        try FileManager.default.createDirectory(at: place.appendingPathComponent("bin"), withIntermediateDirectories: true)
        let copy = place.appendingPathComponent("bin/dashport").path
        try FileManager.default.copyItem(atPath: built, toPath: copy)

        let server = Process()
        server.executableURL = URL(fileURLWithPath: copy)
        server.arguments = ["serve", "--listen", "127.0.0.1:0", "--state-dir", place.appendingPathComponent("state").path]
        server.currentDirectoryURL = place
        var environment = ProcessInfo.processInfo.environment
        environment["DASHPORT_DEMO_CATALOG"] = nil
        server.environment = environment
        let output = Pipe()
        let errors = Pipe()
        server.standardOutput = output
        server.standardError = errors
        try server.run()
        defer { if server.isRunning { server.terminate() } }
        // The one stdout line: "dashport: listening on 127.0.0.1:PORT".
        let line = await onAThread { String(decoding: output.fileHandleForReading.availableData, as: UTF8.self) }
        let address = try #require(line.split(separator: " ").last).trimmingCharacters(in: .whitespacesAndNewlines)

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
        server.terminate()
        let log = await onAThread { String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }

        #expect(car.terminationStatus == 0, "\(screens)")
        #expect(screens.contains("Northern Lights · Aurora Fields"))
        #expect(log.contains("catalog=\(place.appendingPathComponent("state/demo-library/catalog.json").path)"), "\(log)")
    }
}
