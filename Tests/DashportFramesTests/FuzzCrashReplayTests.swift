import DashportFrames
import DashportTestSupport
import Foundation
import Testing

/// Replays every input kept in `FuzzCrashes/` (crashes libFuzzer ever found, plus hand-made seeds)
/// with the invariants `tools/fuzz/FuzzFrames` checks, as expectations instead of traps.
@Suite struct FuzzCrashReplayTests {
    @Test func everyKeptInputKeepsTheInvariants() throws {
        let inputs = try FuzzReplay.keptInputs()
        try #require(!inputs.isEmpty, "FuzzCrashes/ must hold at least one input to replay")
        for (name, bytes) in inputs {
            for limits in [FrameLimits.default, FrameLimits(maxReceivePayload: 48, maxMessageSize: 96, maxPendingBytes: 160)] {
                try checkInvariants(bytes, limits: limits, name: name)
            }
        }
    }

    private func checkInvariants(_ input: [UInt8], limits: FrameLimits, name: String) throws {
        let whole = FrameDecoderVerifier.decode(input, plan: .allAtOnce, limits: limits)
        for plan in [FrameDecoderVerifier.Plan.byteByByte, .fuzzSplits, .random(seed: 7), .random(seed: 8)] {
            let outcome = FrameDecoderVerifier.decode(input, plan: plan, limits: limits)
            #expect(outcome.frames == whole.frames && outcome.error == whole.error, "\(name): \(plan)")
        }
        let reencoded = whole.frames.flatMap { $0.encoded() }
        #expect(input.starts(with: reencoded), "\(name): frames re-encode to their input")
        if whole.error == nil {
            #expect(reencoded.count + whole.leftover == input.count, "\(name): no bytes lost")
        }

        var assembler = MessageAssembler(limits: limits)
        var model = ReassemblyModel(limits: limits)
        for frame in whole.frames {
            let result: Result<AssembledMessage?, FrameError>
            do throws(FrameError) {
                result = .success(try assembler.add(header: frame.header, plaintext: frame.payload))
            } catch {
                result = .failure(error)
            }
            #expect(result == model.add(frame), "\(name): assembler agrees with the model")
            #expect(assembler.pendingByteCount == model.pending, "\(name)")
            #expect(assembler.discardedMessageCount == model.discarded, "\(name)")
            guard case let .success(message?) = result else { continue }
            #expect(message.bytes.count <= limits.maxMessageSize, "\(name)")
            let frames = Fragmenter.plaintextFrames(channel: message.channel, message: message.bytes, limits: limits)
            let decoded = FrameDecoderVerifier.decode(frames.flatMap { $0.encoded() }, plan: .random(seed: 1))
            #expect(try assemble(decoded.frames).map(\.bytes) == [message.bytes], "\(name): round trip")
        }
        #expect(assembler.pendingByteCount <= limits.maxPendingBytes, "\(name)")
    }
}
