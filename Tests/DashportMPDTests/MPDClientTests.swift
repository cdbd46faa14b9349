import DashportClock
import DashportLog
import DashportMPD
import DashportTestSupport
import Foundation
import Testing

/// The client against a real mpd (DashportTestSupport's MPDHarness over the generated MPDLibrary).
@Suite struct MPDClientTests {
    func client(_ harness: MPDHarness, password: String? = nil, sink: CollectingSink = CollectingSink()) -> MPDClient {
        var configuration = MPDClient.Configuration(address: harness.address, password: password ?? harness.password)
        configuration.maxBackoff = .milliseconds(200)
        return MPDClient(configuration: configuration, clock: SystemClock(), logger: Logger(label: "test", level: .debug, sink: sink))
    }

    @Test func theHarnessLibraryIsInMPDsDatabase() async throws {
        let harness = try await MPDHarness.start()
        let client = client(harness)
        let files = try await client.run(MPDCommand("listall")).values(of: "file")
        for track in MPDLibrary.tracks { #expect(files.contains(track.path), "\(track.path)") }
        let alpha = try await client.run(MPDCommand("find", "album", "Alpha"))
        #expect(alpha.records(startingAt: ["file"]).count == 3)
        #expect(alpha.values(of: "Disc").sorted() == ["1", "1", "2"])
        let playlists = try await client.run(MPDCommand("listplaylists")).values(of: "playlist")
        #expect(playlists == [MPDLibrary.playlistName])
        await client.stop()
    }

    @Test func coversComeInChunksAndByteForByte() async throws {
        let harness = try await MPDHarness.start()
        let client = client(harness)
        // A chunk smaller than the cover, so several binary answers make it up.
        _ = try await client.run(MPDCommand("binarylimit", "1024"))
        let folder = try await client.picture(of: "Ann Artist/Alpha/c-Dawn.flac", from: .folder, maxBytes: 1 << 20)
        #expect(folder?.bytes == Array(try Data(contentsOf: URL(fileURLWithPath: MPDLibrary.folderCover))))
        let embedded = try await client.picture(of: "Various/Gamma/01 Spark.flac", from: .embedded, maxBytes: 1 << 20)
        #expect(embedded?.bytes == Array(try Data(contentsOf: URL(fileURLWithPath: MPDLibrary.embeddedCover))))
        #expect(embedded?.mimeType == "image/jpeg")
        #expect(
            try await client.picture(of: "Bob Band/Beta/01 Rise.ogg", from: .folder, maxBytes: 1 << 20)?.bytes
                == Array(MPDLibrary.unreadableCover.utf8))
        #expect(try await client.picture(of: "Bob Band/Beta/01 Rise.ogg", from: .embedded, maxBytes: 1 << 20) == nil)
        await #expect(throws: MPDError.self) { try await client.picture(of: "Ann Artist/Alpha/c-Dawn.flac", from: .folder, maxBytes: 100) }
        await client.stop()
    }

    @Test func anotherClientsChangeArrivesAsAnEvent() async throws {
        let harness = try await MPDHarness.start()
        let client = client(harness)
        let events = await client.events()
        await client.start()
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next().map { if case .connected = $0 { true } else { false } } == true)
        try await harness.run("setvol", "40")
        var changed: Set<String> = []
        while !changed.contains("mixer"), let event = await iterator.next() {
            if case .changed(let names) = event { changed.formUnion(names) }
        }
        #expect(changed.contains("mixer"))
        await client.stop()
    }

    @Test func aWrongPasswordIsNamedAndARightOneWorks() async throws {
        let harness = try await MPDHarness.start(password: "sesame")
        let wrong = client(harness, password: "open")
        await #expect(throws: MPDError.self) { try await wrong.run(MPDCommand("status")) }
        do throws(MPDError) {
            _ = try await wrong.run(MPDCommand("status"))
        } catch {
            guard case .password = error else {
                Issue.record("not a password error: \(error)")
                return
            }
            #expect(error.description.contains("password"))
        }
        let right = client(harness)
        #expect(try await right.run(MPDCommand("status"))["state"] == "stop")
        await wrong.stop()
        await right.stop()
    }

    @Test func mpdNotRunningFailsAtOnceWithTheReason() async throws {
        let directory = try TemporaryDirectory()
        let client = MPDClient(
            configuration: MPDClient.Configuration(address: .unix(directory.file("none.sock"))), clock: SystemClock(), logger: .silent)
        do throws(MPDError) {
            _ = try await client.run(MPDCommand("status"))
            Issue.record("answered without an MPD")
        } catch {
            guard case .unreachable = error else {
                Issue.record("not unreachable: \(error)")
                return
            }
            #expect(error.description.contains("is mpd running"))
        }
    }

    @Test func killedAndRestartedMPDIsReconnected() async throws {
        let harness = try await MPDHarness.start()
        let sink = CollectingSink()
        let client = client(harness, sink: sink)
        let events = await client.events()
        await client.start()
        var iterator = events.makeAsyncIterator()
        guard case .connected = await iterator.next() else { throw MPDHarnessError("no first connection") }
        #expect(try await client.run(MPDCommand("ping")).fields.isEmpty)
        harness.kill()
        guard case .disconnected = await iterator.next() else { throw MPDHarnessError("no disconnection") }
        // While MPD is down a command fails at once with why, instead of hanging.
        await #expect(throws: MPDError.self) { try await client.run(MPDCommand("status")) }
        try await harness.launch()
        var reconnected = false
        while !reconnected, let event = await iterator.next() {
            if case .connected = event { reconnected = true }
        }
        #expect(reconnected)
        #expect(try await client.run(MPDCommand("status"))["state"] != nil)
        #expect(sink.contains(.warning, "lost MPD"))
        await client.stop()
    }
}
