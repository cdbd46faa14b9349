import Foundation
import Glibc
import DashportTestSupport
import Testing

/// The README's commands on a fresh machine: no `~/.local/state` yet. `serve` makes the default
/// state directory and its XDG parents (0700) and does not refuse to start; `fingerprint` creates
/// nothing (issue 21, item 7: a mistyped directory must not print the pin of a key made on the spot).
@Suite struct FreshHomeTests {
    static var built: String { InstalledBinaryTests.root.appendingPathComponent(".build/debug/dashport").path }

    /// A temporary `HOME` without `.local`.
    static func freshHome() throws -> URL {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: false)
        return home
    }

    static func tool(_ arguments: [String], home: URL) -> Process {
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: built)
        tool.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        environment["XDG_STATE_HOME"] = nil
        tool.environment = environment
        return tool
    }

    @Test func serveMakesTheDefaultStateDirectoryWithItsParentsOnAFreshHome() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.built), "build dashport first (swift build)")
        let home = try Self.freshHome()
        defer { try? FileManager.default.removeItem(at: home) }
        let tool = Self.tool(["serve", "--listen", "127.0.0.1:0"], home: home)
        let output = Pipe()
        tool.standardOutput = output
        tool.standardError = FileHandle.nullDevice
        try tool.run()
        // The one stdout line comes once the server listens; it is stopped as a person would.
        let line = await onAThread {
            var text = ""
            while !text.contains("\n") {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }
        kill(tool.processIdentifier, SIGTERM)
        await onAThread { tool.waitUntilExit() }
        #expect(line.hasPrefix("dashport: listening on 127.0.0.1:"), "\(line)")
        for path in [".local", ".local/state", ".local/state/dashport"] {
            var info = stat()
            #expect(stat(home.appendingPathComponent(path).path, &info) == 0 && info.st_mode & 0o777 == 0o700, "\(path)")
        }
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent(".local/state/dashport/server-key.pem").path))
    }

    @Test func fingerprintCreatesNothingAndSaysThereIsNoIdentity() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.built), "build dashport first (swift build)")
        let home = try Self.freshHome()
        defer { try? FileManager.default.removeItem(at: home) }
        for arguments in [["fingerprint"], ["fingerprint", "--state-dir", home.appendingPathComponent("typo").path]] {
            let tool = Self.tool(arguments, home: home)
            let errors = Pipe()
            tool.standardOutput = FileHandle.nullDevice
            tool.standardError = errors
            try tool.run()
            let log = await onAThread { String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
            await onAThread { tool.waitUntilExit() }
            #expect(tool.terminationStatus == 2, "\(log)")
            #expect(log.contains("no such directory, so no server identity"), "\(log)")
            #expect(log.contains("creates one on its first run"), "\(log)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).isEmpty)
    }
}
