import DashportFiles
import DashportLog
import Foundation
import DashportTestSupport
import Testing
@testable import DashportArtwork

#if canImport(Glibc)
import Glibc
#endif

@Suite struct ArtworkDiskCacheTests {
    let scratch: TemporaryDirectory
    let box = ArtworkBox(width: 256, height: 256)

    init() throws {
        scratch = try TemporaryDirectory()
    }

    private func key(_ n: Int) -> ArtworkKey { .digest(of: "https://covers.example/\(n).jpg") }

    private func image(_ size: Int, seed: UInt8 = 7) -> ArtworkImage {
        ArtworkImage(bytes: (0..<size).map { UInt8(truncatingIfNeeded: $0) &+ seed }, mimeType: ArtworkImage.jpeg, width: 256, height: 128)
    }

    private func open(maxBytes: Int = 1 << 20) -> ArtworkDiskCache {
        ArtworkDiskCache(directory: scratch.file("cache"), maxBytes: maxBytes, logger: .silent)
    }

    private var bytesOnDisk: Int { scratch.files(in: "cache").values.reduce(0, +) }

    @Test func thumbnailsRoundTripAcrossARestart() throws {
        var cache = open()
        let stored = ArtworkImage(bytes: Fixture.alpha, mimeType: ArtworkImage.png, width: 400, height: 300)
        try cache.storeThumbnail(stored, key: key(1), box: box)
        #expect(cache.thumbnail(key(1), box) == stored)
        #expect(cache.thumbnail(key(1), ArtworkBox(width: 128, height: 128)) == nil)
        var reopened = open()
        #expect(reopened.thumbnail(key(1), box) == stored)
        #expect(reopened.totalBytes == bytesOnDisk)
    }

    @Test func originalsAreAdoptedAtomicallyAndFoundAfterARestart() throws {
        var cache = open()
        let temporary = cache.temporaryPath()
        #expect(FileManager.default.createFile(atPath: temporary, contents: Data(Fixture.small)))
        let path = try cache.adoptOriginal(temporary, for: key(2))
        #expect(path == scratch.file("cache/o-\(key(2).rawValue)"))
        #expect(scratch.files(in: "cache") == ["o-\(key(2).rawValue)": Fixture.small.count])
        var reopened = open()
        #expect(reopened.original(key(2)) == path)
        #expect(reopened.original(key(3)) == nil)
    }

    @Test func damagedThumbnailsAreDiscarded() throws {
        var cache = open()
        try cache.storeThumbnail(image(1000), key: key(1), box: box)
        try cache.storeThumbnail(image(1000), key: key(2), box: box)
        let name1 = ArtworkDiskCache.Entry.thumbnail(key(1), box).fileName
        let name2 = ArtworkDiskCache.Entry.thumbnail(key(2), box).fileName
        var flipped = try Files.read(scratch.file("cache/\(name1)"), limit: 1 << 20)
        flipped[500] ^= 0xff
        scratch.write("cache/\(name1)", flipped)
        scratch.write("cache/\(name2)", Array("not a thumbnail".utf8))
        var reopened = open()
        #expect(reopened.thumbnail(key(1), box) == nil)
        #expect(reopened.thumbnail(key(2), box) == nil)
        #expect(scratch.files(in: "cache").isEmpty)
        #expect(reopened.totalBytes == 0)
    }

    @Test func leftoversAreDeletedAndForeignFilesLeftAlone() throws {
        var cache = open()
        try cache.storeThumbnail(image(100), key: key(1), box: box)
        scratch.write("cache/.tmp-1234", [1, 2, 3])  // Files.temporaryPath(in:), left by a crash
        scratch.write("cache/notes.txt", [1, 2, 3])
        scratch.write("cache/o-not-a-key", [1, 2, 3])
        scratch.write("cache/v-\(key(1).rawValue)-0256x256", [1, 2, 3])
        let reopened = open()
        #expect(
            Set(scratch.files(in: "cache").keys) == [
                ArtworkDiskCache.Entry.thumbnail(key(1), box).fileName, "notes.txt", "o-not-a-key", "v-\(key(1).rawValue)-0256x256",
            ])
        #expect(reopened.totalBytes == 100 + ThumbnailFile.headerSize)
    }

    @Test func theByteBoundHoldsAndTheLeastRecentlyUsedGoesFirst() throws {
        let entrySize = 1000 + ThumbnailFile.headerSize
        var cache = open(maxBytes: 3 * entrySize)
        for n in 1...3 { try cache.storeThumbnail(image(1000), key: key(n), box: box) }
        #expect(cache.thumbnail(key(1), box) != nil)  // 1 is now the most recently used
        try cache.storeThumbnail(image(1000), key: key(4), box: box)
        #expect(cache.contains(.thumbnail(key(1), box)))
        #expect(!cache.contains(.thumbnail(key(2), box)))
        #expect(cache.contains(.thumbnail(key(3), box)))
        for n in 5...20 {
            try cache.storeThumbnail(image(1000), key: key(n), box: box)
            #expect(cache.totalBytes <= 3 * entrySize)
            #expect(bytesOnDisk <= 3 * entrySize)
        }
        #expect(cache.contains(.thumbnail(key(20), box)))
    }

    @Test func theLastUseOrderSurvivesARestart() throws {
        let entrySize = 1000 + ThumbnailFile.headerSize
        var cache = open(maxBytes: 2 * entrySize)
        try cache.storeThumbnail(image(1000), key: key(1), box: box)
        try cache.storeThumbnail(image(1000), key: key(2), box: box)
        #expect(cache.thumbnail(key(1), box) != nil)  // 2 is now the least recently used
        var reopened = open(maxBytes: 2 * entrySize)
        try reopened.storeThumbnail(image(1000), key: key(3), box: box)
        #expect(reopened.contains(.thumbnail(key(1), box)))
        #expect(!reopened.contains(.thumbnail(key(2), box)))
    }

    @Test func aSmallerBoundAtStartEvictsAtOnce() throws {
        var cache = open()
        for n in 1...5 { try cache.storeThumbnail(image(1000), key: key(n), box: box) }
        let reopened = open(maxBytes: 2500)
        #expect(reopened.totalBytes <= 2500)
        #expect(bytesOnDisk <= 2500)
        #expect(reopened.contains(.thumbnail(key(5), box)))
    }

    @Test func pinnedEntriesWaitUntilUnpinned() throws {
        var cache = open(maxBytes: 1500)
        try cache.storeThumbnail(image(1000), key: key(1), box: box)
        cache.pin(.thumbnail(key(1), box))
        try cache.storeThumbnail(image(1000), key: key(2), box: box)
        #expect(cache.contains(.thumbnail(key(1), box)))
        #expect(!cache.contains(.thumbnail(key(2), box)))  // the only unpinned one had to go
        cache.unpin(.thumbnail(key(1), box))
        try cache.storeThumbnail(image(1000), key: key(3), box: box)
        #expect(!cache.contains(.thumbnail(key(1), box)))
        #expect(cache.contains(.thumbnail(key(3), box)))
    }

    @Test func entryNamesHaveOneSpelling() {
        let k = key(1).rawValue
        #expect(ArtworkDiskCache.Entry(fileName: "o-\(k)") == .original(key(1)))
        #expect(ArtworkDiskCache.Entry(fileName: "v-\(k)-256x128") == .thumbnail(key(1), ArtworkBox(width: 256, height: 128)))
        for name in ["v-\(k)-0256x128", "v-\(k)-+256x128", "v-\(k)-0x128", "v-\(k)-256x", "o-\(k)-1", "x-\(k)", "o-../../etc"] {
            #expect(ArtworkDiskCache.Entry(fileName: name) == nil, "\(name)")
        }
    }
}
