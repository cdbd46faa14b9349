import DashportBrowse
import DashportClock
import DashportLog
import DashportMPD
import DashportMPDSource
import DashportTestSupport
import Testing

/// While MPD's scan runs (`updating_db` in its status), the Albums tab is headed by the notice
/// that says so; once the scan's end is seen (MPD's `update` idle event), the tab is read again
/// without it and reported as changed. The scan is held on one new file (``MPDScanHold``) for as
/// long as the test needs, at most the kernel's 45-s lease break time (checked).
@Suite struct MPDScanNoticeTests {
    @Test func theAlbumsTabSaysTheScanRunsAndIsReadAgainAtItsEnd() async throws {
        let harness = try await MPDHarness.start()
        let client = MPDClient(configuration: MPDClient.Configuration(address: harness.address), clock: SystemClock(), logger: .silent)
        let events = await client.events()
        await client.start()
        defer { Task { await client.stop() } }
        let library = MPDLibraryProvider(client: client, coverDirectory: harness.directory.file("covers"), logger: .silent)
        let hold = try MPDScanHold(music: harness.musicDirectory, copying: "Ann Artist/Alpha/c-Dawn.flac", as: "Later/01 Later.flac")
        defer { hold.release() }
        try await harness.run("update")
        let during = try await library.children(of: "tab/albums", page: 0, pageSize: 50)
        #expect(during.first == MPDLibraryProvider.updatingNotice, "\(during.map(\.title))")
        #expect(during.dropFirst().map(\.title) == ["Alpha", "Beta", "Gamma"])
        #expect(BrowseRules.problem(with: MPDLibraryProvider.updatingNotice) == nil, "a car would drop the notice")
        #expect(hold.isHeld, "the kernel broke the lease (45 s) before the tab was read")
        hold.release()
        var changed: [String] = []
        for await event in events {
            guard case .changed(let subsystems) = event else { continue }
            changed += await library.refresh(subsystems)
            let now = try await library.children(of: "tab/albums", page: 0, pageSize: 50)
            if now.first != MPDLibraryProvider.updatingNotice {
                #expect(now.map(\.title) == ["Alpha", "Beta", "Gamma"])
                break
            }
        }
        #expect(changed.contains("tab/albums"), "\(changed)")
    }
}
