import DashportFrames
import Testing

@Suite struct FragmenterTests {
    /// Messages up to 16124 bytes go out BULK; longer ones FIRST 16120 / MIDDLE 16124 / LAST rest.
    @Test(arguments: [
        (0, [Int]()),
        (1, []), (16_124, []),
        (16_125, [16_120, 5]),
        (32_244, [16_120, 16_124]),
        (32_248, [16_120, 16_124, 4]),
    ])
    func cutsAtThePhoneSizes(size: Int, multi: [Int]) {
        let fragments = Fragmenter.fragments(channel: 3, message: filler(size, seed: 1), encrypted: true, control: false)
        if multi.isEmpty {
            #expect(fragments.map(\.plaintext.count) == [size])
            #expect(fragments.map(\.flags) == [[.bulk, .encrypted]])
            #expect(fragments.first?.totalLength == nil)
        } else {
            #expect(fragments.map(\.plaintext.count) == multi)
            let types = fragments.map(\.flags.type)
            #expect(types == [.first] + Array(repeating: .middle, count: multi.count - 2) + [.last])
            #expect(fragments.first?.totalLength == UInt32(size))
            #expect(fragments.dropFirst().allSatisfy { $0.totalLength == nil })
            #expect(fragments.allSatisfy { $0.flags.contains(.encrypted) && !$0.flags.contains(.control) })
        }
    }

    /// With AES-GCM's 29 bytes every encrypted wire frame stays within 16384 (headunit, waad).
    @Test func encryptedFramesFitTheSendLimit() {
        let limits = FrameLimits.default
        let message = filler(100_000, seed: 4)
        for fragment in Fragmenter.fragments(channel: 1, message: message, encrypted: true, control: false) {
            let record = [UInt8](repeating: 0, count: fragment.plaintext.count + FrameLimits.tlsRecordOverhead)
            let frame = Fragmenter.frame(fragment, wirePayload: record)
            #expect(frame.encoded().count <= limits.maxSendWireFrame)
            #expect(frame.encoded().count == 16_157 || fragment.flags.type == .last)
        }
    }

    @Test func controlAndEncryptedBitsAreTheCallers() {
        let plain = Fragmenter.fragments(channel: 0, message: [0x00, 0x0B], encrypted: false, control: false)
        #expect(plain.map(\.flags.rawValue) == [0x03])
        let open = Fragmenter.fragments(channel: 8, message: [0x00, 0x08], encrypted: true, control: true)
        #expect(open.map(\.flags.rawValue) == [0x0F])
        let big = Fragmenter.fragments(channel: 8, message: filler(40_000, seed: 0), encrypted: true, control: true)
        #expect(big.map(\.flags.rawValue) == [0x0D, 0x0C, 0x0E])
    }

    /// fragment → frame → encode → decode (random splits) → assemble gives the message back.
    @Test(arguments: [0, 1] + Array(16_118...16_126) + [32_248, 100_000])
    func roundTrip(size: Int) throws {
        let message = filler(size, seed: size)
        let frames = Fragmenter.plaintextFrames(channel: 11, message: message, control: true)
        let bytes = frames.flatMap { $0.encoded() }
        for plan in [FrameDecoderVerifier.Plan.allAtOnce, .random(seed: UInt64(size))] {
            let outcome = FrameDecoderVerifier.decode(bytes, plan: plan)
            #expect(outcome.error == nil)
            #expect(outcome.frames == frames)
            let messages = try assemble(outcome.frames)
            #expect(messages.map(\.bytes) == [message])
            #expect(messages.first?.flags.contains(.control) == true)
        }
    }

    /// Custom limits where FIRST would swallow everything still leave a non-empty LAST.
    @Test func lastIsNeverEmpty() {
        let limits = FrameLimits(firstFragmentPlaintext: 100, fragmentPlaintext: 98)
        let fragments = Fragmenter.fragments(
            channel: 0, message: filler(100, seed: 0), encrypted: false,
            control: false, limits: limits)
        #expect(fragments.map(\.plaintext.count) == [99, 1])
    }
}
