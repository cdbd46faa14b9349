import DashportBrowse
import DashportClock
import DashportLog
import DashportMPD
import DashportMPDSource
import DashportMessages
import DashportServer
import DashportTestSupport
import Foundation
import Glibc
import Testing

/// `serve --mpd` with a real mpd: what a car sees of lists longer than a page, of an MPD slower
/// than the browse core's timeout, and of MPD's scan.
@Suite("MPD over TCP: long lists, a slow MPD, the scan")
struct MPDLongListsOverTCPTests {
    static let media = MPDOverTCPTests.media
    let mpd = MPDOverTCPTests()

    func withServer(
        _ harness: MPDHarness, clock: any DashportClock = SystemClock(), _ body: (TestServer, TestCar) async throws -> Void
    ) async throws {
        try await TestServer.with(clock: clock, configure: { $0.mpd = harness.socketPath }) { server in
            let car = try await TestCar.connect(to: server.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
            try await car.waitUntil("server hello") { $0.messages(on: Self.media).contains { $0.id == 0x8001 } }
            // The car goes on a failure too: the server's stop waits on its clock, which a
            // manual clock does not move.
            do {
                try await body(server, car)
            } catch {
                await car.abort()
                throw error
            }
            await car.abort()
        }
    }

    /// One page of `parent`'s children as the car gets it.
    func page(_ car: TestCar, _ parent: String, page: UInt32, size: UInt32, requestId: UInt32) async throws -> DashportMedia.ItemPage {
        await mpd.send(
            car, 0x8003, DashportMedia.GetChildren(requestId: requestId, parentId: parent, page: page, pageSize: size).serializedBytes())
        guard case .items(let items) = try await mpd.result(car, requestId).outcome else {
            Issue.record("answer \(requestId) is not a list")
            return DashportMedia.ItemPage()
        }
        return items
    }

    func pushes(_ car: TestCar, of parent: String) async -> Int {
        await car.messages(on: Self.media).filter { $0.id == 0x8007 }
            .count { (try? DashportMedia.ChildrenChanged(serializedBytes: $0.body))?.parentId == parent }
    }

    /// 123 albums: the provider looks covers up for the first 100 rows of the list it gives the
    /// browse core; a car paging to rows 100+ gets theirs for that page, and can fetch them.
    /// The server runs on a manual clock: the browse core waits for the look-up up to its provider
    /// timeout (10 s), which at load 20 (stress beside two builds) ran out and the page went
    /// without its covers; here only the look-up's own answer ends the wait.
    @Test func rowsPastTheHundredthHaveCoversACarCanFetch() async throws {
        let harness = try await MPDHarness.start()
        let music = harness.musicDirectory
        try MPDLibrary.generateAlbums(music: music, count: 120, scratch: harness.directory.file("scratch"))
        try FileManager.default.copyItem(atPath: MPDLibrary.folderCover, toPath: music + "/Artist 011/Album 0110/cover.jpg")
        try await harness.update()
        try await withServer(harness, clock: ManualClock()) { server, car in
            // MPD's reconnect backoff is on that clock too: ask once the server is connected.
            try await server.waitForLog("connected to MPD", timeout: .seconds(120))
            let later = try await page(car, "tab/albums", page: 1, size: 100, requestId: 1)
            #expect(later.total == 123)
            #expect(later.items.map(\.title) == (100..<120).map { String(format: "Album %04d", $0) } + ["Alpha", "Beta", "Gamma"])
            let covered = later.items.filter { $0.artworkKey != nil }.map(\.title)
            #expect(covered == ["Album 0110", "Alpha", "Gamma"], "rows 100+ with a folder cover or an embedded one")
            let key = try #require(later.items.first { $0.title == "Album 0110" }?.artworkKey)
            await mpd.send(car, 0x8010, DashportMedia.GetArtwork(requestId: 2, key: key, width: 128, height: 128).serializedBytes())
            try await car.waitUntil("cover of Album 0110") { car in
                car.messages(on: Self.media).contains {
                    $0.id == 0x8011 && (try? DashportMedia.ArtworkResult(serializedBytes: $0.body))?.requestId == 2
                }
            }
            let answer = try #require(
                await car.messages(on: Self.media).lazy.filter { $0.id == 0x8011 }
                    .compactMap { try? DashportMedia.ArtworkResult(serializedBytes: $0.body) }.first { $0.requestId == 2 })
            guard case .image(let image) = answer.outcome else {
                Issue.record("the cover of row 110 is not served: \(String(describing: answer.outcome))")
                return
            }
            #expect(image.width == 128 && image.height == 128 && image.data.starts(with: [0xFF, 0xD8]))
            // The first page's rows (covers looked up with the list) are unchanged.
            let first = try await page(car, "tab/albums", page: 0, size: 100, requestId: 3)
            #expect(first.items.count == 100 && first.items.allSatisfy { $0.artworkKey == nil })
        }
    }

    /// MPD stopped (SIGSTOP: connected, silent) when a car opens Albums: after the browse core's
    /// provider timeout (10 s on the server's manual clock, inside MPD's 15-s command timeout)
    /// the car gets an empty list; when MPD answers, the car is pushed children-changed for
    /// Albums, and the list is there when it asks again.
    @Test func aCarGivenNoListIsPushedWhenMPDAnswers() async throws {
        let harness = try await MPDHarness.start()
        let pid = try #require(harness.pid)
        let clock = ManualClock()
        try await withServer(harness, clock: clock) { server, car in
            try await server.waitForLog("connected to MPD")
            // The command connection is open before MPD stops (opening one waits for a greeting).
            #expect(try await mpd.walker.children(car, of: "tab/artists", requestId: 1).count == 3)
            kill(pid, SIGSTOP)
            defer { kill(pid, SIGCONT) }
            // An instant no other sleeper shares: the provider timeout's deadline is this plus 10 s.
            await clock.advance(by: .milliseconds(1234))
            let timeout = Duration.milliseconds(clock.now.milliseconds) + .seconds(10)
            await mpd.send(
                car, 0x8003, DashportMedia.GetChildren(requestId: 2, parentId: "tab/albums", page: 0, pageSize: 50).serializedBytes())
            await clock.waitForSleeper(dueAt: timeout)
            for _ in 0..<10 { await clock.advance(by: .seconds(1)) }
            guard case .items(let empty) = try await mpd.result(car, 2).outcome else {
                Issue.record("not a list")
                return
            }
            #expect(empty.items.isEmpty)
            #expect(await pushes(car, of: "tab/albums") == 0)
            kill(pid, SIGCONT)
            try await car.waitUntil("Albums pushed once MPD answers") { car in
                car.messages(on: Self.media).contains {
                    $0.id == 0x8007 && (try? DashportMedia.ChildrenChanged(serializedBytes: $0.body))?.parentId == "tab/albums"
                }
            }
            #expect(try await mpd.walker.children(car, of: "tab/albums", requestId: 3).map(\.title) == ["Alpha", "Beta", "Gamma"])
        }
    }

    /// MPD's scan held on one new file (``MPDScanHold``) while a car connects: Albums, Artists and
    /// Folders are headed by the notice; once the scan ends the car is pushed children-changed
    /// and gets the library without it. The hold lasts until released, at most the kernel's
    /// 45-s lease break time: the test checks it still held after the car's answers.
    @Test func aCarConnectedDuringAScanSeesTheNoticeThenTheLibrary() async throws {
        let harness = try await MPDHarness.start()
        let hold = try MPDScanHold(music: harness.musicDirectory, copying: "Ann Artist/Alpha/c-Dawn.flac", as: "Later/01 Later.flac")
        defer { hold.release() }
        try await harness.run("update")
        #expect(try await harness.run("status")["updating_db"] != nil)
        try await withServer(harness) { server, car in
            let notice = MPDLibraryProvider.updatingNotice.title
            let albums = try await mpd.walker.children(car, of: "tab/albums", requestId: 1)
            #expect(albums.map(\.title) == [notice, "Alpha", "Beta", "Gamma"])
            #expect(try await mpd.walker.children(car, of: "tab/artists", requestId: 2).first?.title == notice)
            #expect(try await mpd.walker.children(car, of: "tab/folders", requestId: 3).first?.title == notice)
            #expect(try await mpd.walker.children(car, of: "tab/playlists", requestId: 4).map(\.title) == [MPDLibrary.playlistName])
            #expect(hold.isHeld, "the kernel broke the lease (45 s) before the car was answered: the scan may have ended")
            let seen = await car.albumPushes
            hold.release()
            try await car.waitUntil("Albums pushed when the scan ends") { $0.albumPushes > seen }
            #expect(try await harness.run("status")["updating_db"] == nil)
            #expect(try await mpd.walker.children(car, of: "tab/albums", requestId: 5).map(\.title) == ["Alpha", "Beta", "Gamma"])
            let folders = try await mpd.walker.children(car, of: "tab/folders", requestId: 6).map(\.title)
            #expect(folders == ["Ann Artist", "Bob Band", "Later", "Misc", "Various"])
            #expect(server.log.contains(.notice, "MPD is updating its database"))
        }
    }
}
