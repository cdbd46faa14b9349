// Tests/DashportBrowseTests/BrowseCacheFaultTests.swift - a full disk under the browse cache.

import DashportFiles
import DashportTestSupport
import Foundation
import Testing
@testable import DashportBrowse

#if canImport(Glibc)
import Glibc
#endif

/// Writes that fail (`ENOSPC` injected at the `write` call, as a full disk reports it): the new
/// node is served from memory, the previous file stays byte for byte, one report per fault, and
/// the first write that works again writes what was kept in memory.
@Suite struct BrowseCacheFaultTests {
    @Test func aFullDiskKeepsNodesInMemoryReportsOnceAndCatchesUp() async throws {
        let folder = try TemporaryDirectory()
        defer {
            Files.clearWriteFault(under: folder.path)
            folder.remove()
        }
        let cache = BrowseCache(directory: folder.path)
        #expect(await cache.store([track("s1")], for: "t1").isEmpty)
        let before = folder.fileNames.map { (try? Files.read(folder.path + "/" + $0, limit: 1 << 20)) ?? [] }

        Files.injectWriteFault(ENOSPC, under: folder.path)
        let first = await cache.store([track("s1"), track("s2")], for: "t1")
        #expect(first.map(\.code) == [BrowseReportCode.cacheWriteFailed])
        #expect(first.first?.message.contains(String(cString: strerror(ENOSPC))) == true)
        #expect(await cache.store([track("x1")], for: "t2").isEmpty, "the same fault is not reported again")
        #expect(await cache.children(of: "t1")?.map(\.id) == ["s1", "s2"], "the new node is served from memory")
        #expect(await cache.children(of: "t2")?.map(\.id) == ["x1"])
        #expect(
            folder.fileNames.map { (try? Files.read(folder.path + "/" + $0, limit: 1 << 20)) ?? [] } == before,
            "the previous file is intact and nothing else is on disk")

        Files.clearWriteFault(under: folder.path)
        let resumed = await cache.store([track("y1")], for: "t3")
        #expect(resumed.map(\.code) == [BrowseReportCode.cacheWritesResumed])
        #expect(folder.fileNames.count == 3, "t1 and t2, kept in memory, are written too")
        let reopened = BrowseCache(directory: folder.path)
        #expect(await reopened.children(of: "t1")?.map(\.id) == ["s1", "s2"])
        #expect(await reopened.children(of: "t2")?.map(\.id) == ["x1"])

        // A second fault is reported again.
        Files.injectWriteFault(EIO, under: folder.path)
        #expect(await cache.store([track("z1")], for: "t4").map(\.code) == [BrowseReportCode.cacheWriteFailed])
    }
}
