import DashportEmulator
import DashportTestSupport
import DashportHeadUnit
import DashportMessages
import Foundation
import Testing

/// The output that `expect` reads, and covers saved by `--save-art`.
@Suite struct TranscriptAndArtworkTests {
    @Test func expectFindsLinesInOrderAndConsumesThem() async {
        let sink = CollectedLines()
        let transcript = Transcript { line in sink.append(line) }
        await transcript.print(["== Albums ==", "  1  ▶    So What  [t1]", "play So What: accepted"])
        #expect(sink.all.count == 3)
        #expect(await transcript.expect("So What", within: .seconds(5)))
        #expect(await transcript.expect("accepted", within: .seconds(5)))
        // Both matching lines are behind the cursor now.
        #expect(await transcript.expect("So What", within: .milliseconds(20)) == false)
    }

    @Test func expectWaitsForALineStillToCome() async {
        let transcript = Transcript { _ in }
        async let seen = transcript.expect("* playback: paused", within: .seconds(20))
        await transcript.print("* playback: playing")
        await transcript.print("* playback: paused")
        #expect(await seen)
    }

    /// `expect` gives up on the transcript's clock: with a manual clock, exactly when the test moves
    /// it past the limit (a transcript on real time would never sleep on it, and hit the time limit).
    @Test(.timeLimit(.minutes(1))) func expectTimesOutOnTheTranscriptsClock() async {
        let clock = ManualClock()
        let transcript = Transcript(clock: clock) { _ in }
        async let missed = transcript.expect("never printed", within: .seconds(20))
        await clock.waitForSleeper(dueAt: .seconds(20))
        await transcript.print("something else")
        await clock.advance(by: .seconds(20))
        #expect(await missed == false)

        async let seen = transcript.expect("in time", within: .seconds(20))
        await clock.waitForSleeper(dueAt: .seconds(40))
        await clock.advance(by: .seconds(19))
        await transcript.print("in time")
        #expect(await seen)
    }

    @Test func fileNamesCannotEscapeTheDirectory() {
        #expect(ArtworkFiles.fileName(key: "cover-1", mimeType: "image/png") == "cover-1.png")
        #expect(ArtworkFiles.fileName(key: "a1b2c3", mimeType: "image/jpeg") == "a1b2c3.jpg")
        #expect(ArtworkFiles.fileName(key: "../../etc/passwd", mimeType: "image/jpeg") == "_.._.._etc_passwd.jpg")
        #expect(ArtworkFiles.fileName(key: ".hidden", mimeType: "image/png") == "_.hidden.png")
        #expect(ArtworkFiles.fileName(key: "", mimeType: "image/png") == "_.png")
        #expect(ArtworkFiles.fileName(key: "Ümlaut key", mimeType: "image/png") == "_mlaut_key.png")
        let long = String(repeating: "k", count: 500)
        #expect(ArtworkFiles.fileName(key: long, mimeType: "image/png").count == ArtworkFiles.maxStemLength + 4)
    }

    @Test func savesTheImageBytesAndLeavesNoTemporaryFile() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.path
        let image = DashportMedia.ArtworkImage(data: FakeMediaServer.png, mimeType: "image/png", width: 64, height: 64)
        let path = try ArtworkFiles.save(image, key: "cover-1", directory: directory)
        #expect(path == directory + "/cover-1.png")
        #expect(FileManager.default.contents(atPath: path).map(Array.init) == FakeMediaServer.png)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["cover-1.png"])
    }

    @Test func aMissingDirectoryIsCreated() throws {
        let parentDirectory = try TemporaryDirectory()
        defer { parentDirectory.remove() }
        let parent = parentDirectory.path
        let image = DashportMedia.ArtworkImage(data: [1], mimeType: "image/jpeg", width: 1, height: 1)
        let path = try ArtworkFiles.save(image, key: "k", directory: parent + "/covers")
        #expect(path == parent + "/covers/k.jpg")
        #expect(FileManager.default.contents(atPath: path).map(Array.init) == [1])
    }

    @Test func aDirectoryThatCannotBeMadeIsAClearError() throws {
        // A regular file where the folder should be: neither mkdir nor open can succeed, even as root.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dashport-hu-file-\(UUID().uuidString)").path
        try Data([0]).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let image = DashportMedia.ArtworkImage(data: [1], mimeType: "image/jpeg", width: 1, height: 1)
        #expect {
            try ArtworkFiles.save(image, key: "k", directory: file + "/covers")
        } throws: { error in
            guard let error = error as? ArtworkSaveError else { return false }
            return error.path == file + "/covers" && error.reason.hasPrefix("create directory: ")
        }
    }
}
