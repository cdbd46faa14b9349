import DashportHeadUnit
import DashportLink
import DashportMessages
import Testing

/// The emulated car's media audio sink on a real link (in memory, fake clock): the phone's SETUP,
/// focus requests, START, DATA and STOP as the Dashport server sends them (aap-audio.md §A.0), and
/// what the car answers.
@Suite struct CarAudioSinkTests {
    final class Heard {
        var samples: [Int16] = []
    }

    @Test func theCarAnswersFocusSetupAndDataAndHearsThePCM() throws {
        let link = try LinkHarness()
        let heard = Heard()
        link.headUnit.audioOutput = { heard.samples += $0 }
        link.connectAndSettle()
        #expect(link.phone.car?.mediaAudioSink?.channel == 4)
        #expect(link.phoneOpenedChannels.contains(4))

        link.perform(
            try link.phone.send(channel: 0, messageId: 18, body: AAP.AudioFocusRequest(audioFocusType: .release).serializedBytes()))
        link.perform(try link.phone.send(channel: 4, messageId: 0x8000, body: AAP.MediaSetup(type: .audioPcm).serializedBytes()))
        link.pump()
        #expect(link.phoneMessages.map(\.id) == [19, 0x8003])
        #expect(link.phoneMessages.first?.body == AAP.AudioFocusNotification(focusState: .loss).serializedBytes())
        #expect(
            link.phoneMessages.last?.body == AAP.MediaConfig(status: .ready, maxUnacked: 1, configurationIndices: [0]).serializedBytes())

        link.perform(try link.phone.send(channel: 0, messageId: 18, body: AAP.AudioFocusRequest(audioFocusType: .gain).serializedBytes()))
        link.perform(
            try link.phone.send(channel: 4, messageId: 0x8001, body: AAP.MediaStart(sessionId: 0, configurationIndex: 0).serializedBytes()))
        let pcm: [UInt8] = [0x01, 0x00, 0x02, 0x00, 0xFF, 0xFF, 0xFE, 0xFF]
        link.perform(try link.phone.send(channel: 4, messageId: 0, body: [0, 0, 0, 0, 0, 0, 0, 0] + pcm))
        link.perform(try link.phone.send(channel: 4, messageId: 0x8002, body: []))
        link.pump()
        #expect(link.phoneMessages.map(\.id) == [19, 0x8003, 19, 0x8004])
        let ack = try AAP.MediaAck(serializedBytes: link.phoneMessages[3].body)
        #expect(ack.sessionId == 0 && ack.ack == 1)
        #expect(heard.samples == [1, 2, -1, -2])

        let stats = try #require(link.headUnit.audio?.stats)
        #expect(stats.packets == 1 && stats.starts == 1 && stats.stops == 1 && stats.violations == 0)
        let audioEvents = link.headUnitEvents.compactMap { if case .audio(let event) = $0 { event } else { nil } }
        #expect(
            audioEvents == [
                .focusRequested(.release, answer: .loss), .setUp(codec: .audioPcm), .focusRequested(.gain, answer: .gain),
                .started(sessionId: 0, configurationIndex: 0), .stopped(sessionId: 0, packets: 1),
            ])
        #expect(link.phoneClose == nil && link.headUnitClose == nil)
    }

    @Test func anUnsolicitedLossIsSentAtItsDeadline() throws {
        var configuration = HeadUnitConfiguration()
        configuration.audio = MediaSinkConfiguration(focus: .unsolicitedLoss(after: .seconds(2)))
        let link = try LinkHarness(headUnit: configuration)
        link.connectAndSettle()
        link.perform(try link.phone.send(channel: 4, messageId: 0x8000, body: AAP.MediaSetup(type: .audioPcm).serializedBytes()))
        link.perform(
            try link.phone.send(channel: 4, messageId: 0x8001, body: AAP.MediaStart(sessionId: 0, configurationIndex: 0).serializedBytes()))
        link.pump()
        let startedAt = link.now
        #expect(link.headUnit.nextDeadline == startedAt + .seconds(2))
        link.advance(by: .seconds(3))
        let loss = link.phoneMessages.filter { $0.channel == 0 && $0.id == 19 }
        #expect(loss.map(\.body) == [AAP.AudioFocusNotification(focusState: .loss, unsolicited: true).serializedBytes()])
    }

    @Test func withoutAudioTheCarLeavesSinkAndFocusToTheCaller() throws {
        var configuration = HeadUnitConfiguration()
        configuration.audio = nil
        let link = try LinkHarness(headUnit: configuration)
        link.connectAndSettle()
        link.perform(
            try link.phone.send(channel: 0, messageId: 18, body: AAP.AudioFocusRequest(audioFocusType: .release).serializedBytes()))
        link.perform(try link.phone.send(channel: 4, messageId: 0x8000, body: AAP.MediaSetup(type: .audioPcm).serializedBytes()))
        link.pump()
        #expect(link.phoneMessages.isEmpty)
        #expect(link.headUnitEvents.contains { if case .controlMessage(18, _, _) = $0 { true } else { false } })
        #expect(link.headUnitEvents.contains { if case .message(4, 0x8000, _) = $0 { true } else { false } })
    }
}
