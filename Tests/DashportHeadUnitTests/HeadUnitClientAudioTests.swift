import DashportEmulator
import DashportHeadUnit
import DashportLink
import DashportMessages
import DashportTestSupport
import Synchronization
import Testing

/// A HeadUnitClient over real TCP hears what a phone streams, the way the server's tests drive a
/// car: the PCM arrives at `audioOutput`, the stats and tone in `audioSnapshot()`, and the phone
/// gets its focus answer, CONFIG and one ACK per DATA.
@Suite struct HeadUnitClientAudioTests {
    final class Heard: Sendable {
        let samples = Mutex<[Int16]>([])
    }

    @Test func theClientHearsAToneAndTheStatsSayHowMuch() async throws {
        let phone = try FakePhone()
        let heard = Heard()
        let client = try await HeadUnitClient.connect(
            to: phone.address, configuration: HeadUnitClientTests.carConfiguration, identity: try TestTLS.carIdentity.get(),
            audioOutput: { samples in heard.samples.withLock { $0 += samples } })
        let events = Recorder.recording(client.events)
        #expect(await events.wait { HeadUnitClientTests.openedChannels($0).contains(4) })
        let connection = try await phone.firstConnection()
        // The car reports the channel open as it answers; the phone may not have read that yet.
        try await eventually("the phone has channel 4 open") {
            await connection.events.contains { if case .channelOpened(let service) = $0 { service.channel == 4 } else { false } }
        }

        try await connection.send(channel: 0, messageId: 18, body: AAP.AudioFocusRequest(audioFocusType: .gain).serializedBytes())
        try await connection.send(channel: 4, messageId: 0x8000, body: AAP.MediaSetup(type: .audioPcm).serializedBytes())
        try await connection.send(
            channel: 4, messageId: 0x8001, body: AAP.MediaStart(sessionId: 0, configurationIndex: 0).serializedBytes())
        for index in 0..<5 {
            try await connection.send(
                channel: 4, messageId: 0, body: SinkTestAudio.data(timestampUs: UInt64(index) * 42_667, samples: SinkTestAudio.sine(440)))
        }
        try await eventually("five ACKs at the phone") { await connection.messages(on: 4).filter { $0.0 == 0x8004 }.count == 5 }
        #expect(await connection.messages(on: 4).first?.0 == 0x8003, "CONFIG first")
        let gain = AAP.AudioFocusNotification(focusState: .gain).serializedBytes()
        #expect(await connection.messages(on: 0).map(\.1) == [gain], "the gain request answered at once")

        let snapshot = try #require(await client.audioSnapshot())
        #expect(snapshot.stats.packets == 5 && snapshot.stats.bytes == 5 * 8192 && snapshot.stats.violations == 0)
        #expect(snapshot.tone?.frequency == 440)
        #expect(heard.samples.withLock { $0.count } == 5 * 4096)
        await client.byeBye()
        _ = await client.closed(within: .seconds(20))
    }
}
