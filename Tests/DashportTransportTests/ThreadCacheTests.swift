import CDashportLinux
import DashportTestSupport
import DashportTransport
import Glibc
import Testing

/// The reactor's malloc cache (glibc's tcache) is handed back to malloc at rest, so `malloc_trim`
/// can give its pages back (issue 23 item 7: the reactor's cache held 446 blocks after a soak).
@Suite struct ThreadCacheTests {
    /// Bytes in 7 blocks of each of the cache's 64 sizes (32 to 1040-byte chunks).
    static let fullCache = 7 * (0..<64).reduce(0) { $0 + 32 + 16 * $1 }

    @Test func releasingTheReactorsCacheHandsItsBlocksBackToMalloc() async throws {
        // A loop of its own: no other work fills or empties its thread's cache meanwhile.
        let loop = try EventLoop(name: "test-tcache")
        // mallinfo2 counts the process, and other tests allocate meanwhile: one attempt of five
        // must see the cache's bytes leave malloc's "in use" count. Without the release none does.
        var drops: [Int] = []
        for _ in 0..<5 {
            await Self.fillCache(on: loop)
            let before = Int(cdashport_malloc_in_use_bytes())
            await loop.releaseThreadCache()
            let after = Int(cdashport_malloc_in_use_bytes())
            drops.append(before - after)
            if before - after >= Self.fullCache * 2 / 3 { break }
        }
        #expect(drops.contains { $0 >= Self.fullCache * 2 / 3 }, "in-use bytes dropped by \(drops), expected about \(Self.fullCache)")
    }

    /// Mallocs and frees 7 blocks of each cached size on `loop`'s thread: glibc keeps them in the
    /// thread's cache (counted as in use by mallinfo2).
    static func fillCache(on loop: EventLoop) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.execute {
                let blocks = (0..<64).flatMap { size in (0..<7).compactMap { _ in malloc(24 + 16 * size) } }
                blocks.forEach { free($0) }
                done.resume()
            }
        }
    }
}
