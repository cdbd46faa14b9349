import DashportFrames
import Testing
import DashportRandom

@Suite struct FrameDecoderTests {
    /// A drained decoder holds no buffer (an idle car costs none), holds one while a frame is
    /// split across reads, and drains it again once the frame is out (issue 10).
    @Test func theBufferIsReleasedWhenDrainedAndGrowsAgainForASplitFrame() throws {
        var decoder = FrameDecoder()
        #expect(decoder.heldCapacity == 0)
        let big = Frame(channel: 3, flags: [.bulk, .encrypted], payload: filler(16_000, seed: 7))
        decoder.feed(big.encoded())
        #expect(decoder.heldCapacity >= 16_004)
        #expect(try decoder.next() == big)
        #expect(try decoder.next() == nil)
        #expect(decoder.heldCapacity == 0)

        let small = Frame(channel: 0, flags: .bulk, payload: [0x00, 0x0B])
        let bytes = small.encoded() + big.encoded()
        decoder.feed(bytes[..<100])
        #expect(try decoder.next() == small)
        #expect(try decoder.next() == nil)  // the big one is only partly in
        #expect(decoder.heldCapacity > 0)
        decoder.feed(bytes[100...])
        #expect(try decoder.next() == big)
        #expect(decoder.heldCapacity == 0)
    }

    /// The largest length field (65535) is refused as soon as the 4-byte header is in.
    @Test func maximumLengthFieldIsAClearError() throws {
        var decoder = FrameDecoder()
        decoder.feed([0x03, 0x0B, 0xFF, 0xFF])
        let expected = FrameError.payloadTooLarge(channel: 3, length: 65535, limit: 16384 + 1024)
        #expect(throws: expected) { try decoder.next() }
        #expect(expected.description == "frame on channel 3 declares a 65535-byte payload, over the 17408-byte limit")
        FrameDecoderVerifier.verify(
            [0x00, 0x03, 0x00, 0x01, 0x42, 0x03, 0x0B, 0xFF, 0xFF, 0x00],
            frames: [Frame(channel: 0, flags: .bulk, payload: [0x42])], error: expected)
    }

    /// aasdk sends 16413-byte encrypted frames (§8.1); the limit itself passes, one more fails.
    @Test func acceptsAasdkSizedFramesUpToTheLimit() throws {
        let aasdk = Frame(channel: 1, flags: [.first, .encrypted], totalLength: 40_000, payload: filler(16_413, seed: 1))
        FrameDecoderVerifier.verify(aasdk.encoded(), frames: [aasdk])
        let atLimit = Frame(channel: 1, flags: [], payload: filler(17_408, seed: 2))
        FrameDecoderVerifier.verify(atLimit.encoded(), frames: [atLimit])
        FrameDecoderVerifier.verify(
            [0x01, 0x00, 0x44, 0x01], frames: [],
            error: .payloadTooLarge(channel: 1, length: 17_409, limit: 17_408))
    }

    @Test func customReceiveLimitApplies() {
        let limits = FrameLimits(maxReceivePayload: 10)
        FrameDecoderVerifier.verify(
            Frame(channel: 0, flags: .bulk, payload: filler(10, seed: 0)).encoded()
                + [0x00, 0x03, 0x00, 0x0B],
            frames: [Frame(channel: 0, flags: .bulk, payload: filler(10, seed: 0))],
            error: .payloadTooLarge(channel: 0, length: 11, limit: 10), limits: limits)
    }

    /// A FIRST frame announcing more than the message cap is refused before its payload arrives.
    @Test func firstFrameOverTheMessageCapFailsAtTheHeader() throws {
        var decoder = FrameDecoder()
        decoder.feed([0x07, 0x09, 0x00, 0x10, 0x00, 0x10, 0x00, 0x01])
        #expect(throws: FrameError.messageTooLarge(channel: 7, length: 1_048_577, limit: 1_048_576)) {
            try decoder.next()
        }
        let atCap = Frame(channel: 7, flags: .first, totalLength: 1 << 20, payload: [0x80, 0x01])
        FrameDecoderVerifier.verify(atCap.encoded(), frames: [atCap])
    }

    /// After an error the stream is out of sync; every later call repeats the error.
    @Test func errorsAreSticky() {
        var decoder = FrameDecoder()
        decoder.feed([0x00, 0x03, 0xFF, 0xFF])
        let expected = FrameError.payloadTooLarge(channel: 0, length: 65535, limit: 17_408)
        #expect(throws: expected) { try decoder.next() }
        decoder.feed([0x00, 0x03, 0x00, 0x00])
        #expect(throws: expected) { try decoder.next() }
        #expect(decoder.error == expected)
    }

    @Test func buffersPartialInputAndCountsIt() throws {
        var decoder = FrameDecoder()
        #expect(try decoder.next() == nil)
        decoder.feed([0x00, 0x03, 0x00])
        #expect(try decoder.next() == nil)
        #expect(decoder.bufferedByteCount == 3)
        decoder.feed([0x02, 0xAB])
        #expect(try decoder.next() == nil)
        decoder.feed([0xCD, 0x05, 0x03])
        #expect(try decoder.next() == Frame(channel: 0, flags: .bulk, payload: [0xAB, 0xCD]))
        #expect(decoder.bufferedByteCount == 2)
        #expect(try decoder.next() == nil)
        decoder.feed([UInt8]())
        #expect(decoder.bufferedByteCount == 2)
    }

    /// Zero-length frames of every type are frames, not "need more bytes".
    @Test func zeroLengthFramesDecode() {
        let frames = [
            Frame(channel: 1, flags: .bulk, payload: []),
            Frame(channel: 1, flags: .first, totalLength: 0, payload: []),
            Frame(channel: 1, flags: [], payload: []),
            Frame(channel: 1, flags: .last, payload: []),
        ]
        FrameDecoderVerifier.verify(frames.flatMap { $0.encoded() }, frames: frames)
    }

    /// Many small frames fed in random pieces: the buffer compacts and nothing is lost.
    @Test func longStreamOfSmallFrames() {
        var generator = SplitMix64(seed: 42)
        let frames = (0..<500).map { index in
            Frame(
                channel: UInt8(index % 7), flags: .bulk,
                payload: filler(Int.random(in: 0...300, using: &generator), seed: index))
        }
        FrameDecoderVerifier.verify(frames.flatMap { $0.encoded() }, frames: frames)
    }
}
