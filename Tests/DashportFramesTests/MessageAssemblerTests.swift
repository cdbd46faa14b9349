import DashportFrames
import Testing

@Suite struct MessageAssemblerTests {
    private func header(_ channel: UInt8, _ flags: FrameFlags, total: UInt32? = nil, count: Int) -> FrameHeader {
        FrameHeader(channel: channel, flags: flags, payloadLength: UInt16(count), totalLength: total)
    }

    private func add(
        _ assembler: inout MessageAssembler, _ channel: UInt8, _ flags: FrameFlags, total: UInt32? = nil, _ bytes: [UInt8]
    ) throws(FrameError) -> AssembledMessage? {
        try assembler.add(header: header(channel, flags, total: total, count: bytes.count), plaintext: bytes)
    }

    @Test func bulkIsAWholeMessage() throws {
        var assembler = MessageAssembler()
        let message = try add(&assembler, 0, [.bulk, .encrypted], [0x00, 0x0B, 0x01])
        #expect(message == AssembledMessage(channel: 0, flags: [.bulk, .encrypted], bytes: [0x00, 0x0B, 0x01]))
        #expect(message?.encrypted == true)
        #expect(assembler.pendingByteCount == 0)
    }

    /// Frames of different channels interleave; each channel keeps its own partial message.
    @Test func interleavedChannelsReassembleIndependently() throws {
        var assembler = MessageAssembler()
        #expect(try add(&assembler, 1, .first, total: 6, [0x80, 0x01]) == nil)
        #expect(try add(&assembler, 2, [.first, .encrypted], total: 5, [0x80, 0x02, 0xA0]) == nil)
        #expect(try add(&assembler, 0, .bulk, [0x00, 0x0C]) == AssembledMessage(channel: 0, flags: .bulk, bytes: [0x00, 0x0C]))
        #expect(try add(&assembler, 1, [], [0x10, 0x11]) == nil)
        #expect(
            try add(&assembler, 2, [.last, .encrypted], [0xA1, 0xA2])
                == AssembledMessage(channel: 2, flags: [.first, .encrypted], bytes: [0x80, 0x02, 0xA0, 0xA1, 0xA2]))
        #expect(assembler.hasPartialMessage(channel: 1))
        #expect(
            try add(&assembler, 1, .last, [0x12, 0x13])
                == AssembledMessage(channel: 1, flags: .first, bytes: [0x80, 0x01, 0x10, 0x11, 0x12, 0x13]))
        #expect(!assembler.hasPartialMessage(channel: 1))
        #expect(assembler.pendingByteCount == 0)
        #expect(assembler.discardedMessageCount == 0)
    }

    @Test func firstDiscardsThePartialOnItsChannel() throws {
        var assembler = MessageAssembler()
        _ = try add(&assembler, 4, .first, total: 10, [0x80, 0x01, 0xEE])
        _ = try add(&assembler, 5, .first, total: 3, [0x80, 0x05])
        _ = try add(&assembler, 4, .first, total: 4, [0x80, 0x02])
        #expect(assembler.discardedMessageCount == 1)
        #expect(
            try add(&assembler, 4, .last, [0x01, 0x02]) == AssembledMessage(channel: 4, flags: .first, bytes: [0x80, 0x02, 0x01, 0x02]))
        #expect(try add(&assembler, 5, .last, [0x55]) == AssembledMessage(channel: 5, flags: .first, bytes: [0x80, 0x05, 0x55]))
    }

    @Test func bulkDiscardsThePartialOnItsChannel() throws {
        var assembler = MessageAssembler()
        _ = try add(&assembler, 4, .first, total: 10, [0x80, 0x01, 0xEE])
        #expect(try add(&assembler, 4, .bulk, [0x80, 0x09]) == AssembledMessage(channel: 4, flags: .bulk, bytes: [0x80, 0x09]))
        #expect(assembler.discardedMessageCount == 1)
        #expect(assembler.pendingByteCount == 0)
        #expect(throws: FrameError.continuationWithoutFirst(channel: 4, type: .last)) {
            try add(&assembler, 4, .last, [0x01])
        }
    }

    @Test(arguments: [FrameType.middle, .last])
    func continuationWithoutFirstIsAnError(type: FrameType) throws {
        var assembler = MessageAssembler()
        _ = try add(&assembler, 1, .first, total: 4, [0x80, 0x01])
        let error = FrameError.continuationWithoutFirst(channel: 2, type: type)
        #expect(throws: error) { try add(&assembler, 2, FrameFlags().with(type: type), [0x01]) }
        #expect(error.description == "\(type) frame on channel 2 without a FIRST frame before it")
        // Channel 1 is untouched by channel 2's error.
        #expect(try add(&assembler, 1, .last, [0x01, 0x02]) != nil)
    }

    @Test func lastShortOfTheTotalIsAMismatch() throws {
        var assembler = MessageAssembler()
        _ = try add(&assembler, 6, .first, total: 10, [0x80, 0x01, 0x00])
        let error = FrameError.totalLengthMismatch(channel: 6, declared: 10, actual: 5)
        #expect(throws: error) { try add(&assembler, 6, .last, [0x01, 0x02]) }
        #expect(error.description == "message on channel 6 declared 10 bytes in its FIRST frame but has 5")
        #expect(!assembler.hasPartialMessage(channel: 6))
        #expect(assembler.pendingByteCount == 0)
    }

    /// Overshooting the total is caught on the frame that overshoots, FIRST or MIDDLE.
    @Test func overshootingTheTotalIsAMismatchAtOnce() throws {
        var assembler = MessageAssembler()
        #expect(throws: FrameError.totalLengthMismatch(channel: 6, declared: 2, actual: 3)) {
            try add(&assembler, 6, .first, total: 2, [0x80, 0x01, 0x00])
        }
        _ = try add(&assembler, 6, .first, total: 4, [0x80, 0x01])
        #expect(throws: FrameError.totalLengthMismatch(channel: 6, declared: 4, actual: 5)) {
            try add(&assembler, 6, [], [0x01, 0x02, 0x03])
        }
        #expect(!assembler.hasPartialMessage(channel: 6))
    }

    /// The cap is checked from the declared total, from a BULK frame, and from the running size.
    @Test func messageCapIsEnforcedAsSoonAsKnown() throws {
        let limits = FrameLimits(maxMessageSize: 8)
        var assembler = MessageAssembler(limits: limits)
        #expect(throws: FrameError.messageTooLarge(channel: 1, length: 9, limit: 8)) {
            try add(&assembler, 1, .first, total: 9, [0x80, 0x01])
        }
        #expect(throws: FrameError.messageTooLarge(channel: 1, length: 9, limit: 8)) {
            try add(&assembler, 1, .bulk, filler(9, seed: 0))
        }
        #expect(try add(&assembler, 1, .bulk, filler(8, seed: 0)) != nil)

        // Without a declared total (a hand-built header whose flags changed after init), the
        // running size is what trips the cap.
        var noTotal = FrameHeader(channel: 2, flags: .bulk, payloadLength: 4)
        noTotal.flags = .first
        #expect(try assembler.add(header: noTotal, plaintext: filler(4, seed: 0)) == nil)
        #expect(try add(&assembler, 2, [], filler(4, seed: 0)) == nil)
        #expect(throws: FrameError.messageTooLarge(channel: 2, length: 9, limit: 8)) {
            try add(&assembler, 2, .last, [0x01])
        }
        #expect(
            FrameError.messageTooLarge(channel: 2, length: 9, limit: 8).description
                == "message on channel 2 is 9 bytes, over the 8-byte limit")
    }

    /// aasdk ends a multiple-of-16384 message with an empty LAST frame (§8.2).
    @Test func emptyLastEndsTheMessage() throws {
        var assembler = MessageAssembler()
        let message = MessageID.encode(0x8003, body: filler(16_382, seed: 9))
        _ = try add(&assembler, 9, [.first, .encrypted], total: 16_384, message)
        let result = try add(&assembler, 9, [.last, .encrypted], [])
        #expect(result == AssembledMessage(channel: 9, flags: [.first, .encrypted], bytes: message))
        #expect(result?.messageId == 0x8003)
    }

    /// Unfinished messages over all channels are capped, counting each declared total up front.
    @Test func pendingBytesAcrossChannelsAreCapped() throws {
        let limits = FrameLimits(maxMessageSize: 100, maxPendingBytes: 150)
        var assembler = MessageAssembler(limits: limits)
        _ = try add(&assembler, 1, .first, total: 100, [0x80, 0x01])
        #expect(assembler.pendingByteCount == 100)
        let error = FrameError.pendingBytesExceeded(channel: 2, pending: 160, limit: 150)
        #expect(throws: error) { try add(&assembler, 2, .first, total: 60, [0x80, 0x01]) }
        #expect(error.description.contains("160 bytes"))
        _ = try add(&assembler, 2, .first, total: 50, [0x80, 0x01])
        #expect(assembler.pendingByteCount == 150)
        // Finishing or replacing a partial gives its budget back.
        _ = try add(&assembler, 2, .bulk, [0x80, 0x02])
        #expect(assembler.pendingByteCount == 100)
    }
}
