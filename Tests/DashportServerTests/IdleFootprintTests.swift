import DashportTestSupport
import Foundation
import Testing
@testable import DashportServer

/// An idle `dashport serve` has not loaded libvips or libcurl (issue 10, item 6): both are opened
/// on first use (the first cover scaled, the first download), so the ~90 libraries they pull in
/// are not mapped by a server no car has asked for a cover. Linking either again fails here.
@Suite struct IdleFootprintTests {
    @Test func anIdleServerHasNotLoadedLibvipsOrLibcurl() async throws {
        let built = try ChildServer.built()
        let place = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-idle-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: place) }
        try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
        let server = try await ChildServer.start(
            built, ["serve", "--listen", "127.0.0.1:0", "--state-dir", place.appendingPathComponent("state").path])
        defer { if server.process.isRunning { server.process.terminate() } }

        // Read to the end: /proc files report a size of 0, and a size-based read stops at one page.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/\(server.process.processIdentifier)/maps"))
        defer { try? handle.close() }
        let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        let libraries = Set(
            maps.split(separator: "\n").compactMap { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst(5).first }
                .map { String($0.split(separator: "/").last ?? "") })
        // The check has something to look at: the server's own C libraries are mapped.
        #expect(libraries.contains { $0.hasPrefix("libprotobuf-c.so") }, "\(libraries.sorted())")
        #expect(!libraries.contains { $0.hasPrefix("libvips") }, "\(libraries.sorted())")
        #expect(!libraries.contains { $0.hasPrefix("libcurl") }, "\(libraries.sorted())")
        await server.stop()
    }
}
