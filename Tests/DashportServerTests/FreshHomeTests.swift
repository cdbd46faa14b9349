import Foundation
import Glibc
import DashportTestSupport
import Testing

/// The README's first command on a fresh machine: no `~/.local/state` yet. The default state
/// directory and its XDG parents are made (0700); the server does not refuse to start.
@Suite struct FreshHomeTests {
    @Test func theDefaultStateDirectoryIsMadeWithItsParentsOnAFreshHome() async throws {
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
        let log = await onAThread { String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
        await onAThread { tool.waitUntilExit() }
        #expect(tool.terminationStatus == 0, "\(log)")
        for path in [".local", ".local/state", ".local/state/dashport"] {
            var info = stat()
            #expect(stat(home.appendingPathComponent(path).path, &info) == 0 && info.st_mode & 0o777 == 0o700, "\(path)")
        }
    }
}
