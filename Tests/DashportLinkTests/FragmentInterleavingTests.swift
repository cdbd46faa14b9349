import DashportFrames
import DashportHeadUnit
import DashportLink
import DashportMessages
import DashportTestSupport
import Testing

/// Never a frame of another channel between the FIRST and LAST of a fragmented message: aasdk-old
/// keeps one reassembly buffer for the whole link and aborts when a message's fragments are cut
/// by, say, an audio DATA (aap-audio.md). Checked on the raw frames the phone writes while a
/// large answer on the media channel and the audio stream go out together.
@Suite struct FragmentInterleavingTests {
    /// Every frame on another channel found inside a fragmented message, described; empty when
    /// every FIRST…LAST run is unbroken.
    static func interleavings(in frames: [WireInspector.WireFrame]) -> [String] {
        var open: UInt8?
        var found: [String] = []
        for (index, frame) in frames.enumerated() {
            let channel = frame.header.channel
            if let open, channel != open {
                found.append("frame \(index) on channel \(channel) (\(frame.header.type)) inside a message on channel \(open)")
            }
            switch frame.header.type {
            case .first: open = channel
            case .last where channel == open: open = nil
            default: break
            }
        }
        if let open { found.append("the message on channel \(open) never ends") }
        return found
    }

    /// One DATA body: an 8-byte timestamp and 2048 frames of stereo S16 (8192 bytes).
    static func data(_ index: Int) -> [UInt8] {
        let timestamp = UInt64(index) * 42_667
        return (0..<8).map { UInt8(truncatingIfNeeded: timestamp >> (8 * (7 - $0))) } + [UInt8](repeating: UInt8(index % 251), count: 8192)
    }

    @Test(arguments: [nil, 7] as [UInt64?])
    func aLargeMediaAnswerIsNeverCutByAudioData(splitSeed: UInt64?) throws {
        let link = try LinkHarness(splitSeed: splitSeed)
        link.connectAndSettle()
        let sink = try #require(link.phone.car?.mediaAudioSink?.channel)
        let media = try #require(
            link.phone.car?.services.first { if case .vendorExtension = $0.kind { true } else { false } }?.channel,
            "the car lists the dashport.media channel")
        link.perform(try link.phone.send(channel: 0, messageId: 18, body: AAP.AudioFocusRequest(audioFocusType: .gain).serializedBytes()))
        link.perform(try link.phone.send(channel: sink, messageId: 0x8000, body: AAP.MediaSetup(type: .audioPcm).serializedBytes()))
        link.perform(
            try link.phone.send(
                channel: sink, messageId: 0x8001, body: AAP.MediaStart(sessionId: 0, configurationIndex: 0).serializedBytes()))
        link.pump()
        let mark = link.phoneWire.count

        // A browse answer of 50 000 bytes (four frames) goes out in the same turn as due DATA,
        // before, after and between them, as the car's worker sends what each input produced.
        var answers: [[UInt8]] = []
        var packets = 0
        for round in 0..<4 {
            let answer = (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ round) }
            answers.append(answer)
            for _ in 0..<round % 2 {
                link.perform(try link.phone.send(channel: sink, messageId: 0, body: Self.data(packets)))
                packets += 1
            }
            link.perform(try link.phone.send(channel: media, messageId: 0x8002, body: answer))
            for _ in 0..<2 {
                link.perform(try link.phone.send(channel: sink, messageId: 0, body: Self.data(packets)))
                packets += 1
            }
        }
        link.pump()

        let frames = try WireInspector.frames(Array(link.phoneWire[mark...]))
        #expect(frames.filter { $0.header.type == .first }.count == answers.count, "each answer went out fragmented")
        #expect(frames.filter { $0.header.channel == sink }.count == packets, "each DATA went out whole")
        #expect(Self.interleavings(in: frames) == [])
        #expect(link.headUnit.framesBetweenFragments == 0)
        let heard = link.headUnitMessages.filter { $0.channel == media && $0.id == 0x8002 }.map(\.body)
        #expect(heard == answers, "the car reassembled every answer")
        #expect(link.headUnit.audio?.stats.packets == packets)
        #expect(link.headUnit.audio?.stats.violations == 0)
        #expect(link.phoneClose == nil && link.headUnitClose == nil)
    }

    @Test func theCarCountsAFrameBetweenAnotherMessagesFragments() throws {
        var wire = LinkWire(tls: try TestTLS.carSession(), limits: .default)
        let body = MessageID.encode(0x8001, body: [UInt8](repeating: 7, count: 20))
        wire.feed(
            Frame(channel: 16, flags: FrameFlags.bulk.with(type: .first), totalLength: UInt32(body.count), payload: Array(body[..<10]))
                .encoded())
        wire.feed(Frame(channel: 4, flags: .bulk, payload: MessageID.encode(0, body: [1, 2, 3, 4])).encoded())
        wire.feed(Frame(channel: 16, flags: FrameFlags.bulk.with(type: .last), payload: Array(body[10...])).encoded())
        wire.feed(Frame(channel: 4, flags: .bulk, payload: MessageID.encode(0, body: [5, 6])).encoded())
        var channels: [UInt8] = []
        while let message = try wire.nextMessage() { channels.append(message.channel) }
        #expect(channels == [4, 16, 4], "the frame layer reassembles across the cut")
        #expect(wire.framesBetweenFragments == 1, "only the DATA inside the message counts")
    }

    @Test func theCheckFindsADataFrameInsideAMessage() throws {
        let first = Frame(
            channel: 16, flags: FrameFlags.bulk.with(type: .first), totalLength: 30, payload: [UInt8](repeating: 1, count: 20))
        let data = Frame(channel: 4, flags: .bulk, payload: [0, 0, 1, 2])
        let last = Frame(channel: 16, flags: FrameFlags.bulk.with(type: .last), payload: [UInt8](repeating: 2, count: 10))
        let cut = try WireInspector.frames(first.encoded() + data.encoded() + last.encoded())
        #expect(Self.interleavings(in: cut) == ["frame 1 on channel 4 (BULK) inside a message on channel 16"])
        let whole = try WireInspector.frames(first.encoded() + last.encoded() + data.encoded())
        #expect(Self.interleavings(in: whole) == [])
        let unfinished = try WireInspector.frames(first.encoded())
        #expect(Self.interleavings(in: unfinished) == ["the message on channel 16 never ends"])
    }
}
