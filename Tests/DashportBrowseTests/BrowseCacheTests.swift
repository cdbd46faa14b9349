// Tests/DashportBrowseTests/BrowseCacheTests.swift - the cache on disk: bounds, LRU, atomic writes, damage.

import Foundation
import DashportTestSupport
import Testing
@testable import DashportBrowse

@Suite struct BrowseCacheTests {
    @Test func nodesSurviveARestart() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let first = BrowseCache(directory: folder.path)
        #expect(await first.store([tab("t1"), tab("t2")], for: BrowseItem.rootId).isEmpty)
        #expect(await first.store([track("s1")], for: "t1").isEmpty)

        let second = BrowseCache(directory: folder.path)
        #expect(await second.load().isEmpty)
        #expect(await second.children(of: BrowseItem.rootId)?.map(\.id) == ["t1", "t2"])
        #expect(await second.children(of: "t1")?.map(\.id) == ["s1"])
        #expect(await second.nodeCount == 2)
    }

    @Test func leastRecentlyUsedGoesFirst() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = BrowseCache(directory: folder.path, maxNodes: 3)
        for id in ["a", "b", "c"] { await cache.store([track("\(id)-1")], for: id) }
        _ = await cache.children(of: "a")  // a is now the most recent; b the least
        await cache.store([track("d-1")], for: "d")
        #expect(await cache.parentIds == ["d", "a", "c"])
        await cache.store([track("e-1")], for: "e")
        #expect(await cache.parentIds == ["e", "d", "a"])
        #expect(folder.fileNames.count == 3)

        // Across a restart the order is the write order.
        let reopened = BrowseCache(directory: folder.path, maxNodes: 3)
        #expect(Set(await reopened.parentIds) == ["e", "d", "a"])
        await reopened.store([track("f-1")], for: "f")
        #expect(Set(await reopened.parentIds) == ["f", "e", "d"])
    }

    @Test func atomicWritesLeaveNoTemporaryFiles() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        // A temporary file left by a crash is cleaned at load.
        #expect(FileManager.default.createFile(atPath: folder.path + "/.tmp-node-0000000000000000.dpbc-x", contents: Data([1, 2, 3])))
        let cache = BrowseCache(directory: folder.path)
        for round in 0..<5 {
            for id in ["a", "b", "c"] { await cache.store([track("\(id)-\(round)")], for: id) }
        }
        #expect(folder.fileNames.allSatisfy { $0.hasPrefix("node-") && $0.hasSuffix(".dpbc") })
        #expect(folder.fileNames.count == 3)
        #expect(await cache.children(of: "b")?.map(\.id) == ["b-4"])
    }

    @Test func aNodeLargerThanTheWholeCacheIsNotCached() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = BrowseCache(directory: folder.path, maxBytes: 1000)
        await cache.store([track("small")], for: "big")
        let huge = (0..<100).map { track("track-\($0)", String(repeating: "x", count: 50)) }
        let reports = await cache.store(huge, for: "big")
        #expect(reports.map(\.code) == [BrowseReportCode.cacheNodeTooLarge])
        #expect(await cache.children(of: "big") == nil)
        #expect(folder.fileNames.isEmpty)
    }

    @Test(arguments: ["truncated", "bit flip", "foreign", "other version", "misplaced"])
    func damagedFilesAreDiscardedAndReported(damage: String) async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let writer = BrowseCache(directory: folder.path)
        await writer.store([tab("tab-1"), tab("tab-2")], for: BrowseItem.rootId)
        await writer.store([track("song")], for: "tab-1")
        let victim = CacheFileFormat.fileName(for: BrowseItem.rootId)
        let path = folder.path + "/" + victim
        var bytes = try #require(FileManager.default.contents(atPath: path)).map { $0 }
        switch damage {
        case "truncated": bytes.removeLast(bytes.count / 3)
        case "bit flip": bytes[bytes.count - 7] ^= 0x10
        case "foreign": bytes = Array("<html>not a cache</html>".utf8)
        case "misplaced":
            let other = folder.path + "/" + CacheFileFormat.fileName(for: "tab-1")
            bytes = try #require(FileManager.default.contents(atPath: other)).map { $0 }
        default: bytes[5] = 9
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        // The core loads the cache, reports the discarded file, and still works.
        let provider = FakeProvider(tree: [BrowseItem.rootId: [tab("tab-1")], "tab-1": [track("song")]])
        let core = makeCore(provider, cache: BrowseCache(directory: folder.path))
        let answer = await core.children(of: BrowseItem.rootId, page: 0, pageSize: 10, for: .full)
        #expect(answer == .items([tab("tab-1")], total: 1, fromCache: false))
        let discarded = await core.reports.filter { $0.code == BrowseReportCode.cacheDiscarded }
        #expect(discarded.count == 1)
        #expect(discarded.first?.itemId == victim)
        #expect(discarded.first?.message.contains(path) == true)
        // The intact node is still cached; the damaged one was replaced by the fresh answer.
        #expect(await core.cache?.children(of: "tab-1")?.map(\.id) == ["song"])
        let reread = try CacheFileFormat.decode(try #require(FileManager.default.contents(atPath: path)).map { $0 })
        #expect(reread.node.children.map(\.id) == ["tab-1"])
    }

    @Test func boundsHoldUnderALargerTree() async throws {
        // 500 nodes, 15 MB in all: more than 64 nodes and more than 2 MB. The first 250 are small
        // (about 6 KB), so the node bound binds; the last 250 are about 60 KB, so the byte bound does.
        var tree: [String: [BrowseItem]] = [BrowseItem.rootId: [tab("all")]]
        let nodeIds = (0..<500).map { "node-\($0)" }
        tree["all"] = nodeIds.map { tab($0) }
        for (index, id) in nodeIds.enumerated() {
            let count = index < 250 ? 10 : 100
            tree[id] = (0..<count).map { track("\(id)-\($0)", "Track \($0) of \(id) " + String(repeating: "~", count: 550)) }
        }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = BrowseCache(directory: folder.path)
        let core = makeCore(FakeProvider(tree: tree), cache: cache)
        var nodeBoundReached = false
        var byteBoundBinding = false
        for id in [BrowseItem.rootId, "all"] + nodeIds {
            _ = await core.children(of: id, page: 0, pageSize: 10, for: .full)
            let (nodes, bytes) = (await cache.nodeCount, await cache.byteCount)
            #expect(nodes <= 64 && bytes <= 2 * 1024 * 1024, "after \(id)")
            nodeBoundReached = nodeBoundReached || nodes == 64
            byteBoundBinding = byteBoundBinding || (nodes < 60 && bytes > 2 * 1024 * 1024 - 70_000)
        }
        #expect(nodeBoundReached && byteBoundBinding)
        let onDisk = folder.files().values.reduce(0, +)
        #expect(folder.fileNames.count == (await cache.nodeCount))
        #expect(onDisk == (await cache.byteCount))
        // The most recent node is kept; the oldest are gone.
        #expect(await cache.children(of: "node-499") != nil)
        #expect(await cache.children(of: "node-250") == nil)
    }
}
