import DashportFrames
import Testing

@Suite struct FrameHeaderTests {
    /// The frame type comes from `flags & 3` by masked equality; other bits do not change it.
    @Test(arguments: [
        (UInt8(0x00), FrameType.middle), (0x01, .first), (0x02, .last), (0x03, .bulk),
        (0x08, .middle), (0x09, .first), (0x0A, .last), (0x0B, .bulk), (0x0F, .bulk), (0xF1, .first),
    ])
    func typeIsReadByMaskedEquality(raw: UInt8, type: FrameType) {
        #expect(FrameFlags(rawValue: raw).type == type)
        #expect(FrameType(flags: FrameFlags(rawValue: raw)) == type)
    }

    @Test func bulkIsFirstAndLast() {
        #expect(FrameFlags.bulk.rawValue == 0x03)
        #expect(FrameFlags([.bulk, .encrypted, .control]).rawValue == 0x0F)
        #expect(FrameFlags(rawValue: 0x0B).with(type: .middle).rawValue == 0x08)
        #expect(FrameFlags(rawValue: 0xF0).with(type: .first).rawValue == 0xF1)
    }

    @Test func onlyFirstHasTheTotalField() {
        let first = FrameHeader(channel: 2, flags: .first, payloadLength: 0x0102, totalLength: 0x0A0B_0C0D)
        #expect(first.encodedSize == 8)
        #expect(first.encoded() == [0x02, 0x01, 0x01, 0x02, 0x0A, 0x0B, 0x0C, 0x0D])
        for flags in [FrameFlags.bulk, [], .last] {
            let header = FrameHeader(channel: 2, flags: flags, payloadLength: 7, totalLength: 99)
            #expect(header.totalLength == nil, "total is dropped for \(flags.type)")
            #expect(header.encodedSize == 4)
            #expect(header.encoded() == [0x02, flags.rawValue, 0x00, 0x07])
        }
    }

    @Test func decodeRoundTripsAndWaitsForWholeHeader() {
        let header = FrameHeader(channel: 255, flags: [.first, .encrypted], payloadLength: 65535, totalLength: .max)
        let bytes = header.encoded()
        #expect(FrameHeader.decode(from: bytes) == header)
        for count in 0..<bytes.count {
            #expect(FrameHeader.decode(from: bytes.prefix(count)) == nil, "\(count) bytes are not a FIRST header")
        }
        #expect(FrameHeader.decode(from: [0x01, 0x03, 0x00]) == nil)
        #expect(FrameHeader.decode(from: [0x01, 0x03, 0x00, 0x05]) == FrameHeader(channel: 1, flags: .bulk, payloadLength: 5))
    }

    /// Unused bits 4–7 survive a decode/encode round trip untouched.
    @Test func unusedFlagBitsArePreserved() throws {
        var decoder = FrameDecoder()
        decoder.feed([0x04, 0xF3, 0x00, 0x01, 0xAA])
        let frame = try #require(try decoder.next())
        #expect(frame.header.flags.rawValue == 0xF3)
        #expect(frame.header.type == .bulk)
        #expect(frame.encoded() == [0x04, 0xF3, 0x00, 0x01, 0xAA])
    }

    @Test func messageIdIsBigEndian() {
        #expect(MessageID.encode(0x8003, body: [0x01]) == [0x80, 0x03, 0x01])
        #expect(MessageID.decode([0x80, 0x03, 0x01]) == 0x8003)
        #expect(MessageID.decode([0x80]) == nil)
        let short = AssembledMessage(channel: 1, flags: .bulk, bytes: [0x07])
        #expect(short.messageId == nil)
        #expect(short.body.isEmpty)
        let message = AssembledMessage(channel: 1, flags: [.bulk, .encrypted], bytes: [0x00, 0x07, 0x08, 0x09])
        #expect(message.messageId == 7)
        #expect(Array(message.body) == [0x08, 0x09])
        #expect(message.encrypted)
    }
}
