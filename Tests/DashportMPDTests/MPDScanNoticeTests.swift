import DashportBrowse
import DashportClock
import DashportLog
import DashportMPD
import DashportMPDSource
import DashportTestSupport
import Testing

/// While MPD's scan runs (`updating_db` in its status), the Albums tab is headed by the notice
/// that says so; once the scan's end is seen (MPD's `update` idle event), the tab is read again
/// without it and reported as changed. A real mpd scans 10,000 files more; MPD's status is read
/// around the provider's answer, so the notice is expected only when the scan ran throughout.
@Suite struct MPDScanNoticeTests {
    @Test func theAlbumsTabSaysTheScanRunsAndIsReadAgainAtItsEnd() async throws {
        let harness = try await MPDHarness.start()
        let client = MPDClient(configuration: MPDClient.Configuration(address: harness.address), clock: SystemClock(), logger: .silent)
        let events = await client.events()
        await client.start()
        defer { Task { await client.stop() } }
        let library = MPDLibraryProvider(client: client, coverDirectory: harness.directory.file("covers"), logger: .silent)
        try MPDLibrary.generateBulk(music: harness.musicDirectory, files: 10_000)
        try await harness.run("update")
        let before = try await harness.run("status")["updating_db"] != nil
        let during = try await library.children(of: "tab/albums", page: 0, pageSize: 50)
        if before {
            // Read before the list: a scan running when the list was asked is always said.
            #expect(during.first == MPDLibraryProvider.updatingNotice, "\(during.map(\.title))")
            #expect(during.dropFirst().map(\.title) == ["Alpha", "Beta", "Gamma"])
        }
        // The scan's end: MPD's idle says `update` once `updating_db` is gone.
        let mpd = try await harness.connect()
        defer { mpd.close() }
        while try await mpd.run(MPDCommand("status"))["updating_db"] != nil { _ = try await mpd.idle(["update"]) }
        var changed: [String] = []
        for await event in events {
            guard case .changed(let subsystems) = event else { continue }
            changed += await library.refresh(subsystems)
            let now = try await library.children(of: "tab/albums", page: 0, pageSize: 50)
            if now.first != MPDLibraryProvider.updatingNotice {
                #expect(now.map(\.title).starts(with: ["Alpha", "Beta", "Gamma"]))
                break
            }
        }
        #expect(!before || changed.contains("tab/albums"), "\(changed)")
        #expect(before, "the scan ended before the tab was asked (10,000 files): nothing was tested")
    }
}
