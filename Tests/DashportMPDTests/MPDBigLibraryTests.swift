import DashportBenchSupport
import DashportBrowse
import DashportClock
import DashportLog
import DashportMPD
import DashportMPDSource
import Foundation
import DashportTestSupport
import Testing

/// A library of 2,000 albums (one tagged FLAC each, `GeneratedLibrary`) in a real mpd: the first
/// page of Albums comes through the browse core with its rows within the core's own 10-s budget
/// (before, the provider looked up a cover for every album of the list and the page was empty),
/// and a second car gets the same rows.
// 2,000 albums written and scanned by mpd: heavy beside the whole suite on 2 cores, so on request:
// `DASHPORT_HEAVY_TESTS=1 swift test --filter MPDBigLibraryTests`.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["DASHPORT_HEAVY_TESTS"] == "1", "a load test: DASHPORT_HEAVY_TESTS=1"))
struct MPDBigLibraryTests {
    @Test func theFirstAlbumsPageOfTwoThousandAlbumsHasRowsForEveryCar() async throws {
        let harness = try await MPDHarness.start()
        let scratch = harness.directory.file("scratch")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        _ = try GeneratedLibrary.generate(into: harness.musicDirectory, albums: 2000, tracks: 1, scratch: scratch)
        // A cover (JPEG's first and last marker are enough for the provider) on a first-page
        // album and on one far down the list: only the first is looked up.
        for album in [0, 1500] {
            let cover = harness.musicDirectory + "/" + GeneratedLibrary.directory(album) + "/cover.jpg"
            #expect(FileManager.default.createFile(atPath: cover, contents: Data([0xFF, 0xD8, 0xFF, 0xD9])))
        }
        let mpd = try await harness.connect()
        defer { mpd.close() }
        _ = try await mpd.run(MPDCommand("update"))
        while try await mpd.run(MPDCommand("status"))["updating_db"] != nil { _ = try await mpd.idle(["update"]) }

        let client = MPDClient(configuration: MPDClient.Configuration(address: harness.address), clock: SystemClock(), logger: .silent)
        await client.start()
        defer { Task { await client.stop() } }
        let library = MPDLibraryProvider(client: client, coverDirectory: harness.directory.file("covers"), logger: .silent)
        let core = BrowseCore(provider: library)
        let first = await core.children(of: MPDLibraryId.tab(.albums).id, page: 0, pageSize: 50, for: .full)
        guard case .items(let rows, let total, let fromCache) = first else {
            Issue.record("not a list: \(first)")
            return
        }
        #expect(!fromCache, "the provider did not answer within the browse core's budget")
        #expect(total >= 2000)
        #expect(rows.map(\.title) == (0..<50).map(GeneratedLibrary.album))
        #expect(rows.first?.artworkUri != nil, "the first page's covers are looked up")
        let second = await core.children(of: MPDLibraryId.tab(.albums).id, page: 0, pageSize: 50, for: .full)
        #expect(second == first)
        // Rows past the first coverRows: not looked up with the whole list, but for the page a car asks.
        let whole = try await library.children(of: MPDLibraryId.tab(.albums).id, page: 0, pageSize: 2001)
        #expect(whole[1500].artworkUri == nil, "a cover was looked up for a row past the first \(MPDLibraryProvider.coverRows)")
        let later = await core.children(of: MPDLibraryId.tab(.albums).id, page: 30, pageSize: 50, for: .full)
        #expect(later.items.map(\.title) == (1500..<1550).map(GeneratedLibrary.album))
        #expect(later.items.first?.artworkUri != nil, "the cover of a row on the page asked")
    }
}
