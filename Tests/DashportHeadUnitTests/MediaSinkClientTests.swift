import DashportDigest
import DashportHeadUnit
import DashportMessages
import Foundation
import Testing

/// The car-role media audio sink, sans-IO on a manual clock: CONFIG and ACK bytes, session ids,
/// the playout clock (lead, underflows), protocol violations counted, malformed bodies survived.
@Suite struct MediaSinkClientTests {
    static let setup = AAP.MediaSetup(type: .audioPcm).serializedBytes()
    static let packet = SinkTestAudio.packetDuration

    static func start(_ session: Int32, index: UInt32 = 0) -> [UInt8] {
        AAP.MediaStart(sessionId: session, configurationIndex: index).serializedBytes()
    }

    static func sink(_ configuration: MediaSinkConfiguration = MediaSinkConfiguration()) -> MediaSinkClient {
        MediaSinkClient(car: HeadUnitConfiguration.aasdkLikeCar, configuration: configuration)
    }

    @Test func theDefaultCarListsAPCMMediaSinkOnChannel4() {
        let sink = Self.sink()
        #expect(sink.channel == 4)
        #expect(sink.audioConfigs == [AAP.AudioConfiguration(samplingRate: 48_000, numberOfBits: 16, numberOfChannels: 2)])
    }

    @Test(arguments: [(UInt32(1), "08 02 10 01 18 00"), (UInt32(4096), "08 02 10 80 20 18 00")])
    func setupIsAnsweredWithConfigReady(window: UInt32, hex: String) {
        var sink = Self.sink(MediaSinkConfiguration(window: window))
        let out = sink.receive(messageId: 0x8000, body: Self.setup, now: .seconds(1))
        #expect(out.first == .send(channel: 4, messageId: 0x8003, body: SinkTestAudio.bytes(hex)))
        #expect(out.dropFirst().first == .event(.setUp(codec: .audioPcm)))
        #expect(sink.stats.setups == 1 && sink.codec == .audioPcm)
    }

    @Test func eachDataIsAcknowledgedWithTheStartsSessionId() throws {
        var sink = Self.sink()
        _ = sink.receive(messageId: 0x8000, body: Self.setup, now: .zero)
        _ = sink.receive(messageId: 0x8001, body: Self.start(0), now: .seconds(1))
        let out = sink.receive(messageId: 0, body: SinkTestAudio.data(timestampUs: 0), now: .seconds(1))
        #expect(out.first == .send(channel: 4, messageId: 0x8004, body: SinkTestAudio.bytes("08 00 10 01 18 80 94 eb dc 03")))
        _ = sink.receive(messageId: 0x8002, body: [], now: .seconds(2))
        _ = sink.receive(messageId: 0x8001, body: Self.start(1), now: .seconds(3))
        let again = sink.receive(messageId: 0, body: SinkTestAudio.data(timestampUs: 5), now: .seconds(3))
        guard case .send(_, 0x8004, let body) = again.first else {
            Issue.record("no ACK first: \(again)")
            return
        }
        let ack = try AAP.MediaAck(serializedBytes: body)
        #expect(ack.sessionId == 1 && ack.ack == 1 && ack.receiveTimestampNs == [3_000_000_000])
        #expect(sink.stats.acksSent == 2 && sink.stats.packets == 2 && sink.stats.bytes == 2 * 8192)
        #expect(sink.stats.starts == 2 && sink.stats.stops == 1 && sink.stats.violations == 0)
        #expect(sink.stats.lastTimestampUs == 5)
    }

    @Test func anAcklessSinkSendsNoAcks() {
        var sink = Self.sink(MediaSinkConfiguration(sendsAcks: false))
        _ = sink.receive(messageId: 0x8000, body: Self.setup, now: .zero)
        _ = sink.receive(messageId: 0x8001, body: Self.start(0), now: .zero)
        var sent: [MediaSinkOutput] = []
        for index in 0..<5 {
            sent += sink.receive(messageId: 0, body: SinkTestAudio.data(timestampUs: 0), now: Self.packet * index)
                .filter { if case .send = $0 { true } else { false } }
        }
        #expect(sent.isEmpty)
        #expect(sink.stats.packets == 5 && sink.stats.acksSent == 0)
    }

    @Test func pcmIsDecodedLittleEndianAndRetained() {
        var sink = Self.sink(MediaSinkConfiguration(retainedFrames: 2))
        _ = sink.receive(messageId: 0x8000, body: Self.setup, now: .zero)
        _ = sink.receive(messageId: 0x8001, body: Self.start(0), now: .zero)
        let body: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 9] + [0x01, 0x00, 0xFF, 0xFF, 0x00, 0x80, 0xFF, 0x7F]
        let out = sink.receive(messageId: 0, body: body, now: .zero)
        #expect(out.last == .samples([1, -1, -32768, 32767]))
        #expect(sink.recentSamples == [1, -1, -32768, 32767])
        #expect(sink.stats.lastTimestampUs == 9)
    }

    @Test func dataOutsideStartStopIsCountedDroppedAndStillAcknowledged() throws {
        var sink = Self.sink()
        _ = sink.receive(messageId: 0x8000, body: Self.setup, now: .zero)
        let before = sink.receive(messageId: 0, body: SinkTestAudio.data(timestampUs: 0), now: .zero)
        #expect(!before.contains { if case .samples = $0 { true } else { false } })
        #expect(before.first == .event(.violation("DATA outside START…STOP (8192 bytes); dropped")))
        guard case .send(_, 0x8004, let body) = before.last else {
            Issue.record("no ACK: \(before)")
            return
        }
        #expect(try AAP.MediaAck(serializedBytes: body).sessionId == -1)
        _ = sink.receive(messageId: 0x8001, body: Self.start(0), now: .zero)
        _ = sink.receive(messageId: 0x8002, body: [], now: .seconds(1))
        _ = sink.receive(messageId: 0, body: SinkTestAudio.data(timestampUs: 0), now: .seconds(2))
        #expect(sink.stats.dataOutsideSession == 2 && sink.stats.packets == 0 && sink.stats.violations == 2)
    }

    @Test func codecConfigOnPCMAndOutOfOrderMessagesAreViolations() {
        var sink = Self.sink()
        _ = sink.receive(messageId: 0x8002, body: [], now: .zero)  // STOP with nothing running
        _ = sink.receive(messageId: 0x8001, body: Self.start(0), now: .zero)  // START before SETUP
        _ = sink.receive(messageId: 0x0001, body: [1, 2, 3], now: .zero)  // CODEC_CONFIG
        _ = sink.receive(messageId: 0x8001, body: Self.start(5), now: .zero)  // no STOP, and id 5 after 0
        _ = sink.receive(messageId: 0x8001, body: Self.start(6, index: 3), now: .zero)  // index 3 of 1 config
        #expect(sink.stats.codecConfigs == 1)
        #expect(sink.stats.violations == 9)
        #expect(sink.stats.sessionId == 6)
    }

    @Test func leadIsAudioReceivedMinusRealTimeSinceTheFirstData() {
        var sink = Self.sink()
        _ = sink.receive(messageId: 0x8000, body: Self.setup, now: .zero)
        _ = sink.receive(messageId: 0x8001, body: Self.start(0), now: .seconds(10))
        #expect(sink.lead(at: .seconds(10)) == nil, "no audio yet")
        let first = Duration.seconds(10) + .milliseconds(5)
        // A one-packet prefill, then one packet per packet duration.
        _ = sink.receive(messageId: 0, body: SinkTestAudio.data(timestampUs: 0), now: first)
        _ = sink.receive(messageId: 0, body: SinkTestAudio.data(timestampUs: 0), now: first)
        for index in 1...10 {
            _ = sink.receive(messageId: 0, body: SinkTestAudio.data(timestampUs: 0), now: first + Self.packet * index)
        }
        #expect(sink.lead(at: first + Self.packet * 10) == Self.packet * 2)
        #expect(sink.lead(at: first + Self.packet * 11) == Self.packet)
        #expect(sink.stats.underflows == 0)
        #expect(sink.stats.audioReceived == Self.packet * 12)
        _ = sink.receive(messageId: 0x8002, body: [], now: .seconds(20))
        #expect(sink.lead(at: .seconds(20)) == nil)
    }

    @Test func dataArrivingAfterTheBufferRanDryIsAnUnderflow() {
        var sink = Self.sink()
        _ = sink.receive(messageId: 0x8000, body: Self.setup, now: .zero)
        _ = sink.receive(messageId: 0x8001, body: Self.start(0), now: .zero)
        _ = sink.receive(messageId: 0, body: SinkTestAudio.data(timestampUs: 0), now: .zero)
        // Exactly on time is not an underflow: the buffer ends as the next packet comes.
        _ = sink.receive(messageId: 0, body: SinkTestAudio.data(timestampUs: 0), now: Self.packet)
        #expect(sink.stats.underflows == 0)
        // 100 ms late.
        let late = sink.receive(messageId: 0, body: SinkTestAudio.data(timestampUs: 0), now: Self.packet * 2 + .milliseconds(100))
        #expect(late.contains(.event(.underflow(sessionId: 0, late: .milliseconds(100)))))
        #expect(sink.stats.underflows == 1)
        // The playout clock restarted at the late packet: the next one on time is fine.
        _ = sink.receive(messageId: 0, body: SinkTestAudio.data(timestampUs: 0), now: Self.packet * 3 + .milliseconds(100))
        #expect(sink.stats.underflows == 1)
        #expect(sink.lead(at: Self.packet * 3 + .milliseconds(100)) == Self.packet)
    }

    @Test func aToleranceAbsorbsJitterAndNotificationsCanBeSent() {
        var sink = Self.sink(MediaSinkConfiguration(sendsUnderflowNotifications: true, underflowTolerance: .milliseconds(20)))
        _ = sink.receive(messageId: 0x8000, body: Self.setup, now: .zero)
        _ = sink.receive(messageId: 0x8001, body: Self.start(3), now: .zero)
        _ = sink.receive(messageId: 0, body: SinkTestAudio.data(timestampUs: 0), now: .zero)
        _ = sink.receive(messageId: 0, body: SinkTestAudio.data(timestampUs: 0), now: Self.packet + .milliseconds(15))
        #expect(sink.stats.underflows == 0)
        let late = sink.receive(messageId: 0, body: SinkTestAudio.data(timestampUs: 0), now: Self.packet * 3)
        #expect(late.contains(.send(channel: 4, messageId: 0x800B, body: AAP.AudioUnderflowNotification(sessionId: 3).serializedBytes())))
        #expect(sink.stats.underflows == 1)
    }

    @Test func malformedBodiesNeverCrashAndAreCounted() {
        var sink = Self.sink()
        let garbage: [[UInt8]] = [[0xFF], [0x08], [0x08, 0x80], [0x0A, 0x05, 0x01], [0x12, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]
        for body in garbage {
            _ = sink.receive(messageId: 0x8000, body: body, now: .zero)
            _ = sink.receive(messageId: 0x8001, body: body, now: .zero)
            _ = sink.receive(messageId: 0, body: body, now: .zero)
            _ = sink.receiveFocusRequest(body, now: .zero)
        }
        _ = sink.receive(messageId: 0x8004, body: [], now: .zero)  // an ACK from the phone
        _ = sink.receive(messageId: 0x8001, body: Self.start(0), now: .zero)
        _ = sink.receive(messageId: 0, body: [0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3], now: .zero)  // 3 PCM bytes
        _ = sink.receive(messageId: 0, body: Array(repeating: 0x7F, count: 8), now: .zero)  // timestamp only
        #expect(sink.stats.malformed >= 5)
        #expect(sink.stats.packets == 2)
    }
}

/// PCM and bytes for the audio tests.
enum SinkTestAudio {
    static let packetDuration = Duration.nanoseconds(2048 * 1_000_000_000 / 48_000)

    /// "08 02" → [0x08, 0x02].
    static func bytes(_ hex: String) -> [UInt8] {
        hex.split(separator: " ").compactMap { UInt8($0, radix: 16) }
    }

    /// One DATA body: the 8-byte big-endian timestamp and 2048 stereo frames of `samples` (silence).
    static func data(timestampUs: UInt64, samples: [Int16]? = nil) -> [UInt8] {
        let timestamp = (0..<8).map { UInt8(truncatingIfNeeded: timestampUs >> (8 * (7 - $0))) }
        return timestamp + WAVHeader.littleEndian(samples ?? [Int16](repeating: 0, count: 4096))
    }

    /// `frames` stereo frames of a sine at `frequency` Hz, amplitude `level` of full scale.
    static func sine(_ frequency: Double, frames: Int = 2048, level: Double = 0.5, rate: Double = 48_000) -> [Int16] {
        (0..<frames).flatMap { frame -> [Int16] in
            let value = Int16(level * 32767 * sin(2 * Double.pi * frequency * Double(frame) / rate))
            return [value, value]
        }
    }
}
