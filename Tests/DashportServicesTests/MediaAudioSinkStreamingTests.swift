import DashportLog
import DashportMessages
import DashportRandom
import DashportSession
import Testing
@testable import DashportServices

@Suite("Media audio sink: DATA, window, ACKs, ducking and bad input")
struct MediaAudioSinkStreamingTests {
    /// DATA: id 0 on the sink's channel, body = 8-byte big-endian µs timestamp + the 8192 PCM bytes.
    @Test func dataBodyIsTimestampThenPCM() throws {
        var sink = MediaAudioSinkService.streaming()
        let packet = audioPacket(0x0102_0304_0506_0708)
        let message = try #require(sink.send(packet: packet, now: .zero).sent.first)
        #expect(message.channel == sinkChannel && message.messageId == dataId)
        #expect(message.body.count == 8 + 8192)
        #expect(Array(message.body.prefix(8)) == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(Array(message.body.dropFirst(8)) == packet.pcm)
        #expect(sink.statistics.packetsSent == 1 && sink.statistics.bytesSent == 8200)
    }

    /// With `max_unacked` 1 the second packet waits for the first one's ACK.
    @Test func windowOfOne() {
        var sink = MediaAudioSinkService.streaming(maxUnacked: 1)
        #expect(sink.sendableCount == 1)
        #expect(sink.send(packet: audioPacket(0), now: .zero).sent.count == 1)
        #expect(!sink.canSend && sink.outstanding == 1)
        let refused = sink.send(packet: audioPacket(42_667), now: .milliseconds(42))
        #expect(refused.sent.isEmpty && refused.logs.map(\.level) == [.debug])
        _ = sink.receive(messageId: ackId, body: ackBody(), now: .milliseconds(50))
        #expect(sink.canSend && sink.outstanding == 0)
        #expect(sink.send(packet: audioPacket(42_667), now: .milliseconds(50)).sent.count == 1)
        #expect(sink.statistics.packetsSent == 2 && sink.statistics.acks == 1)
    }

    /// The DHU's window of 4096: that many go before the first ACK, not one more.
    @Test func windowOf4096() {
        var sink = MediaAudioSinkService.streaming(maxUnacked: 4096)
        #expect(sink.sendableCount == 4096)
        let packet = audioPacket()
        var sent = 0
        for _ in 0..<4096 { sent += sink.send(packet: packet, now: .zero).sent.count }
        #expect(sent == 4096 && sink.outstanding == 4096)
        #expect(sink.sendableCount == 0 && sink.send(packet: packet, now: .zero).sent.isEmpty)
        _ = sink.receive(messageId: ackId, body: ackBody(), now: .zero)
        #expect(sink.sendableCount == 1)
    }

    /// An ACK credits min(ack, outstanding); an absent `ack` is 1, 0 credits nothing, and an old
    /// stream's ACK (openauto: -1 after STOP) is credited too.
    @Test func ackCreditsAtMostWhatIsOutstanding() {
        var sink = MediaAudioSinkService.streaming(maxUnacked: 4)
        for _ in 0..<3 { _ = sink.send(packet: audioPacket(), now: .zero) }
        _ = sink.receive(messageId: ackId, body: ackBody(ack: 10), now: .zero)
        #expect(sink.outstanding == 0 && sink.sendableCount == 4, "a cumulative 10 only opens the window")
        for _ in 0..<4 { _ = sink.send(packet: audioPacket(), now: .zero) }
        _ = sink.receive(messageId: ackId, body: ackBody(ack: nil), now: .zero)
        #expect(sink.outstanding == 3)
        _ = sink.receive(messageId: ackId, body: ackBody(ack: 0), now: .zero)
        #expect(sink.outstanding == 3)
        _ = sink.receive(messageId: ackId, body: ackBody(session: -1, ack: 2), now: .zero)
        #expect(sink.outstanding == 1 && sink.statistics.acks == 4)
    }

    /// A new START resets the outstanding count.
    @Test func startResetsOutstanding() {
        var sink = MediaAudioSinkService.streaming(maxUnacked: 1)
        _ = sink.send(packet: audioPacket(), now: .zero)
        _ = sink.playbackChanged(playing: false, now: .zero)
        _ = sink.playbackChanged(playing: true, now: .zero)
        #expect(sink.outstanding == 0 && sink.canSend)
    }

    /// A car at protocol 5.0 or later sends no audio ACKs: no window, no deadline.
    @Test func acklessAtProtocol5() {
        var sink = MediaAudioSinkService.streaming(maxUnacked: 1, protocolAtLeast5: true)
        #expect(sink.ackless && sink.statistics.ackless)
        for index in 0..<50 {
            #expect(sink.send(packet: audioPacket(UInt64(index)), now: .zero).sent.count == 1)
        }
        #expect(sink.canSend && sink.nextDeadline == nil)
    }

    /// No ACK within 2 s of the stream's first packet: ackless from then on, said once.
    @Test func acklessAfterTwoSecondsWithoutAcks() {
        var sink = MediaAudioSinkService.streaming(maxUnacked: 1)
        #expect(sink.nextDeadline == nil, "no deadline before a packet went")
        _ = sink.send(packet: audioPacket(), now: .seconds(10))
        #expect(sink.nextDeadline == .seconds(12))
        #expect(sink.tick(now: .milliseconds(11_999)).isEmpty && !sink.canSend)
        let tick = sink.tick(now: .seconds(12))
        #expect(tick.logs.map(\.level) == [.warning])
        #expect(sink.ackless && sink.canSend && sink.nextDeadline == nil)
        #expect(sink.tick(now: .seconds(20)).isEmpty)
        // Later streams stay ackless.
        _ = sink.playbackChanged(playing: false, now: .seconds(21))
        _ = sink.playbackChanged(playing: true, now: .seconds(22))
        _ = sink.send(packet: audioPacket(), now: .seconds(22))
        #expect(sink.canSend && sink.nextDeadline == nil)
    }

    /// An ACK in time disarms the deadline: the window stays.
    @Test func ackInTimeKeepsTheWindow() {
        var sink = MediaAudioSinkService.streaming(maxUnacked: 1)
        _ = sink.send(packet: audioPacket(), now: .zero)
        _ = sink.receive(messageId: ackId, body: ackBody(), now: .seconds(1))
        #expect(sink.nextDeadline == nil && sink.tick(now: .seconds(3)).isEmpty)
        _ = sink.send(packet: audioPacket(), now: .seconds(3))
        #expect(!sink.ackless && !sink.canSend)
    }

    /// CAN_DUCK attenuates the S16LE samples (gain 0.5: halved, rounded); GAIN restores them.
    @Test func duckingAttenuatesAndGainRestores() throws {
        var sink = MediaAudioSinkService.streaming(maxUnacked: 8, configuration: .init(duckGain: 0.5))
        // Samples 1000, -1000, 32767, -32768 (little-endian).
        let packet = audioPacket(fill: [0xE8, 0x03, 0x18, 0xFC, 0xFF, 0x7F, 0x00, 0x80])
        let duck = sink.focusNotification(body: focusBody(.lossTransientCanDuck), now: .zero)
        #expect(duck.effects.isEmpty, "no STOP, no pause: playing on")
        #expect(sink.gain == 0.5 && sink.state == .started)
        let ducked = try #require(sink.send(packet: packet, now: .zero).sent.first)
        // 500, -500, 16384, -16384.
        #expect(Array(ducked.body[8..<16]) == [0xF4, 0x01, 0x0C, 0xFE, 0x00, 0x40, 0x00, 0xC0])
        #expect(ducked.body.count == 8200)
        #expect(sink.focusNotification(body: focusBody(.gain), now: .zero).effects.isEmpty)
        #expect(sink.gain == 1)
        #expect(try #require(sink.send(packet: packet, now: .zero).sent.first).body.dropFirst(8) == packet.pcm[...])
    }

    /// The default duck gain (0.3) and rounding to the nearest value.
    @Test func defaultDuckGain() {
        var body: [UInt8] = []
        MediaAudioSinkService.appendScaled([0xE8, 0x03, 0xFF, 0xFF, 0x01], gain: 0.3, to: &body)
        #expect(body == [0x2C, 0x01, 0x00, 0x00, 0x01], "1000 → 300, -1 → 0, the odd byte as it is")
    }

    /// Nothing goes outside START…STOP, and never a CODEC_CONFIG.
    @Test func noDataOutsideStartAndStop() {
        var sink = MediaAudioSinkService(channel: sinkChannel, car: "car-1", audioConfigs: [stereo48k], protocolAtLeast5: true)
        var all: [OutgoingMessage] = []
        all += sink.send(packet: audioPacket(), now: .zero).sent
        all += sink.open(now: .zero).sent
        all += sink.send(packet: audioPacket(), now: .zero).sent
        all += sink.receive(messageId: configId, body: configBody(), now: .zero).sent
        all += sink.send(packet: audioPacket(), now: .zero).sent
        all += sink.focusNotification(body: focusBody(.gain), now: .zero).sent
        all += sink.send(packet: audioPacket(), now: .zero).sent
        all += sink.playbackChanged(playing: true, now: .zero).sent
        all += sink.send(packet: audioPacket(), now: .zero).sent
        all += sink.playbackChanged(playing: false, now: .zero).sent
        all += sink.send(packet: audioPacket(), now: .zero).sent
        all += sink.focusNotification(body: focusBody(.loss), now: .zero).sent
        all += sink.send(packet: audioPacket(), now: .zero).sent
        #expect(all.map(\.messageId) == [focusRequestId, setupId, startId, dataId, stopId])
        #expect(sink.statistics.packetsSent == 1)
    }

    /// Truncated varints, wrong wire types and random bytes as CONFIG, ACK, underflow or focus:
    /// a log line, never a crash, and (when the body does not decode) no change at all.
    @Test func malformedBodiesChangeNothing() {
        var random = SplitMix64(seed: 0x5EED)
        var bodies: [[UInt8]] = [[0x08], [0x10, 0xFF], [0x0A, 0x05, 0x01], [0x08, 0x80, 0x80], [0xFF], [0x12]]
        for _ in 0..<300 {
            bodies.append((0..<Int.random(in: 1...24, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        }
        for start in [MediaAudioSinkService.opened(), .streaming(maxUnacked: 2)] {
            for body in bodies {
                var sink = start
                checkUnchanged(&sink, body, decodes: (try? AAP.MediaConfig(serializedBytes: body)) != nil) {
                    $0.receive(messageId: configId, body: body, now: .zero)
                }
                checkUnchanged(&sink, body, decodes: (try? AAP.MediaAck(serializedBytes: body)) != nil) {
                    $0.receive(messageId: ackId, body: body, now: .zero)
                }
                checkUnchanged(&sink, body, decodes: (try? AAP.AudioUnderflowNotification(serializedBytes: body)) != nil) {
                    $0.receive(messageId: underflowId, body: body, now: .zero)
                }
                checkUnchanged(&sink, body, decodes: (try? AAP.AudioFocusNotification(serializedBytes: body)) != nil) {
                    $0.focusNotification(body: body, now: .zero)
                }
            }
        }
    }

    /// Runs `handle`; a body that does not decode gets one error line and leaves `sink` as it was.
    func checkUnchanged(
        _ sink: inout MediaAudioSinkService, _ body: [UInt8], decodes: Bool,
        _ handle: (inout MediaAudioSinkService) -> [MediaAudioSinkService.Action]
    ) {
        let before = sink
        let actions = handle(&sink)
        guard !decodes else {
            sink = before
            return
        }
        #expect(sink == before, "body \(body)")
        #expect(actions.effects.isEmpty && actions.logs.map(\.level) == [.error], "body \(body)")
    }

    /// AUDIO_UNDERFLOW_NOTIFICATION: a warning and a count.
    @Test func underflowIsCounted() {
        var sink = MediaAudioSinkService.streaming()
        let first = sink.receive(messageId: underflowId, body: AAP.AudioUnderflowNotification(sessionId: 0).serializedBytes(), now: .zero)
        #expect(first.logs.map(\.level) == [.warning] && first.effects.isEmpty)
        _ = sink.receive(messageId: underflowId, body: [], now: .zero)
        #expect(sink.statistics.underflows == 2)
    }

    /// Other ids: a debug line and no change; dropped packets are counted.
    @Test func unknownIdsAndDroppedPackets() {
        var sink = MediaAudioSinkService.streaming()
        let before = sink
        for id: UInt16 in [0x0000, 0x0001, 0x8000, 0x8001, 0x8005, 0x9999] {
            let actions = sink.receive(messageId: id, body: [0x08, 0x01], now: .zero)
            #expect(actions.effects.isEmpty && actions.logs.map(\.level) == [.debug])
        }
        #expect(sink == before)
        sink.dropped(count: 3)
        sink.dropped(count: -1)
        #expect(sink.statistics.dropped == 3)
    }
}
