import DashportDigest
import DashportHeadUnit
import DashportLink
import DashportMessages
import DashportRecording
import Testing

/// Recordings never hold PCM: DATA and ACK on an audio sink become summaries of 24 packets.
@Suite struct AudioRecordingTests {
    static func data(_ fill: UInt8) -> [UInt8] {
        [0, 0, 0, 0, 0, 0, 0, fill] + [UInt8](repeating: fill, count: 8192)
    }

    @Test func dataOnTheAudioSinkIsSummarisedNeverRecorded() throws {
        let recorder = SessionRecorder(side: .car, description: "audio")
        let car = recorder.addCar()
        let tap = recorder.tap(car: car)
        let discovery = AAP.ServiceDiscoveryResponse(describing: HeadUnitConfiguration.aasdkLikeCar).serializedBytes()
        tap(TappedMessage(direction: .sent, channel: 0, messageId: 6, encrypted: true, body: discovery))
        tap(TappedMessage(direction: .received, channel: 4, messageId: 0x8000, encrypted: true, body: [0x08, 0x01]))
        var pcm: [UInt8] = []
        for index in 0..<50 {
            let body = Self.data(UInt8(index))
            if index < 24 { pcm += body.dropFirst(8) }
            tap(TappedMessage(direction: .received, channel: 4, messageId: 0, encrypted: true, body: body))
            tap(TappedMessage(direction: .sent, channel: 4, messageId: 0x8004, encrypted: true, body: [0x08, 0x00, 0x10, 0x01]))
        }
        let entries = recorder.recording.entries
        #expect(entries.map(\.name) == ["serviceDiscoveryResponse", "setup", AudioSummary.name, AudioSummary.name, AudioSummary.name])
        let first = entries[2].body
        #expect(first["summary"] == .number("0") && first["packets"] == .number("24") && first["bytes"] == .number("196608"))
        #expect(first["crc32"] == .string(Hex.string((0..<4).map { UInt8(truncatingIfNeeded: CRC32.checksum(pcm) >> (8 * (3 - $0))) })))
        #expect(first["acks"] == .number("24"))
        #expect(entries[4].body["packets"] == .number("2"), "the summary being filled is included")
        #expect(recorder.recording.serialized().utf8.count < 4096, "no PCM in the file")

        var same = AudioSummary.Tally()
        for index in 0..<24 { same.add(data: Self.data(UInt8(index))) }
        #expect(same.differences(from: first).isEmpty)
        var other = AudioSummary.Tally()
        for index in 0..<24 { other.add(data: Self.data(UInt8(index + 1))) }
        #expect(other.differences(from: first).map(\.path) == ["crc32"])
    }
}
