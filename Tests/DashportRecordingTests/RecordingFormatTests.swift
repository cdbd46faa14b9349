import DashportMessages
import Testing
@testable import DashportRecording

/// The recording file format: it round-trips, refuses what it cannot read naming the line, and
/// compares bodies and whole recordings the way replays and re-recordings need.
@Suite struct RecordingFormatTests {
    static func entry(_ direction: RecordedDirection, _ id: UInt16, _ body: JSONValue, channel: UInt8 = 16) -> RecordedMessage {
        let codec = MessageCatalog.codec(service: .dashportMedia, messageId: id)
        return RecordedMessage(
            car: 1, timeMs: 5, direction: direction, channel: channel, service: .dashportMedia,
            messageId: id, name: codec.name, encrypted: true, body: body)
    }

    static let sample = SessionRecording(
        description: "sample",
        entries: [
            entry(.car, 32771, DashportMedia.GetChildren(requestId: 1, parentId: "__root__").jsonValue),
            entry(
                .server, 32780,
                DashportMedia.PlaybackState(
                    status: .playing, position: DashportMedia.PositionAnchor(valueMs: 10, atMs: 20, rate: 1), sentAtMs: 30
                ).jsonValue),
            entry(.server, 32774, DashportMedia.BrowseResult(requestId: 1).jsonValue),
        ])

    @Test func roundTripsThroughText() throws {
        let text = Self.sample.serialized()
        #expect(text.split(separator: "\n").count == 4)
        var parsed = try SessionRecording(parsing: text)
        for index in parsed.entries.indices { parsed.entries[index].line = 0 }
        #expect(parsed == Self.sample)
        #expect(try parsed.entries[0].bodyBytes() == DashportMedia.GetChildren(requestId: 1, parentId: "__root__").serializedBytes())
    }

    @Test(arguments: [
        (#"{"format":"other","version":1}"#, 1),
        (#"{"format":"dashport-session","version":2}"#, 1),
        ("{\"format\":\"dashport-session\",\"version\":1}\n{\"car\":1}", 2),
        (
            "{\"format\":\"dashport-session\",\"version\":1}\n"
                + #"{"car":1,"t":0,"dir":"car","ch":16,"service":"dashport.media","id":32771,"name":"search","enc":true,"body":{}}"#, 2
        ),
        (
            "{\"format\":\"dashport-session\",\"version\":1}\n"
                + #"{"car":1,"t":0,"dir":"up","ch":16,"service":"dashport.media","id":32771,"name":"getChildren","enc":true,"body":{}}"#, 2
        ),
        ("", 1),
    ])
    func unreadableFilesNameTheLine(text: String, line: Int) {
        let error = #expect(throws: RecordingError.self) { try SessionRecording(parsing: text) }
        #expect(error?.line == line)
    }

    @Test func volatileFieldsAreComparedForPresenceOnly() {
        let recorded = DashportMedia.PlaybackState(status: .playing, position: .init(valueMs: 10, atMs: 20, rate: 1), sentAtMs: 30)
        var replayed = recorded
        replayed.position = .init(valueMs: 999, atMs: 888, rate: 1)
        replayed.sentAtMs = 777
        #expect(
            BodyComparison.differences(
                expected: recorded.jsonValue, actual: replayed.jsonValue,
                message: "playbackState", volatile: .standard
            ).isEmpty)
        replayed.sentAtMs = nil
        replayed.position?.rate = 2
        let differences = BodyComparison.differences(
            expected: recorded.jsonValue, actual: replayed.jsonValue,
            message: "playbackState", volatile: .standard)
        #expect(differences.map(\.path).sorted() == ["position.rate", "sentAtMs"])
    }

    /// A playback state that only moves the anchor repeats the one before it; a changed status,
    /// rate or anything else of substance does not.
    @Test func aReAnchoredPlaybackStateIsARepeat() {
        let before = DashportMedia.PlaybackState(status: .playing, position: .init(valueMs: 0, atMs: 366, rate: 1), sentAtMs: 369)
        var reAnchored = before
        reAnchored.position = .init(valueMs: 85, atMs: 371, rate: 1)
        reAnchored.sentAtMs = 372
        #expect(VolatileFields.standard.isRepeat(message: "playbackState", reAnchored.jsonValue, after: before.jsonValue))
        var paused = reAnchored
        paused.status = .paused
        #expect(!VolatileFields.standard.isRepeat(message: "playbackState", paused.jsonValue, after: before.jsonValue))
        var faster = reAnchored
        faster.position?.rate = 2
        #expect(!VolatileFields.standard.isRepeat(message: "playbackState", faster.jsonValue, after: before.jsonValue))
        #expect(!VolatileFields.standard.isRepeat(message: "playbackState", before.jsonValue, after: nil))
    }

    @Test func reRecordingDiffIgnoresInterleavingAndNamesChangedFields() {
        var swapped = Self.sample
        swapped.entries.swapAt(1, 2)
        #expect(RecordingDiff.differences(old: Self.sample, new: swapped).isEmpty)
        var changed = Self.sample
        changed.entries[2] = Self.entry(.server, 32774, DashportMedia.BrowseResult(requestId: 2).jsonValue)
        let lines = RecordingDiff.differences(old: Self.sample, new: changed)
        #expect(lines.contains { $0.contains("browseResult") })
        #expect(lines.contains { $0.contains("requestId: was 1, now 2") })
        changed.entries.removeLast()
        #expect(RecordingDiff.differences(old: Self.sample, new: changed).contains { $0.contains("1 recorded before, 0 now") })
    }
}
