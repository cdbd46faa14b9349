import DashportFrames
import Testing
import DashportRandom

/// Checks a ``FrameDecoder`` the way NIO's `ByteToMessageDecoderVerifier` checks a decoder: the
/// same input fed byte by byte, all at once, and in seeded random splits must give the same
/// frames (and the same error, at the same point).
enum FrameDecoderVerifier {
    /// One way of cutting the input into `feed` calls.
    enum Plan: CustomStringConvertible {
        case byteByByte
        case allAtOnce
        case random(seed: UInt64)
        /// The splits `tools/fuzz/FuzzFrames` uses: 1–24-byte pieces from SplitMix64 seeded with
        /// an FNV-1a hash of the input, so a kept fuzz input replays the same cuts.
        case fuzzSplits

        var description: String {
            switch self {
            case .byteByByte: "byte by byte"
            case .allAtOnce: "all at once"
            case let .random(seed): "random splits, seed \(seed)"
            case .fuzzSplits: "fuzz target's splits"
            }
        }

        func chunks(for input: [UInt8]) -> [Range<Int>] {
            let count = input.count
            switch self {
            case .byteByByte:
                return (0..<count).map { $0..<$0 + 1 }
            case .allAtOnce:
                return [0..<count]
            case let .random(seed):
                var generator = SplitMix64(seed: seed)
                var ranges: [Range<Int>] = []
                var start = 0
                while start < count {
                    // Mostly short pieces (cuts inside headers), sometimes long ones (whole frames).
                    let cap = Bool.random(using: &generator) ? 9 : 20_000
                    let end = min(count, start + Int.random(in: 1...cap, using: &generator))
                    ranges.append(start..<end)
                    start = end
                }
                return ranges
            case .fuzzSplits:
                var generator = SplitMix64(hashing: input)
                return generator.pieces(covering: count, maxLength: 24)
            }
        }
    }

    /// What one plan produced: frames, the error if any, and bytes left buffered.
    struct Outcome: Equatable {
        var frames: [Frame] = []
        var error: FrameError?
        /// Buffered bytes at the end; only meaningful without an error.
        var leftover = 0
    }

    static let plans: [Plan] = [.byteByByte, .allAtOnce] + (1...16).map { Plan.random(seed: $0) }

    static func decode(_ input: [UInt8], plan: Plan, limits: FrameLimits = .default) -> Outcome {
        var decoder = FrameDecoder(limits: limits)
        var outcome = Outcome()
        for range in plan.chunks(for: input) {
            decoder.feed(input[range])
            do {
                while let frame = try decoder.next() { outcome.frames.append(frame) }
            } catch {
                outcome.error = error
                outcome.leftover = 0
                return outcome
            }
        }
        outcome.leftover = decoder.bufferedByteCount
        return outcome
    }

    /// Expects every plan to decode `input` into exactly `frames`, then `error` (or nothing left
    /// over when `error` is nil).
    static func verify(
        _ input: [UInt8], frames: [Frame], error: FrameError? = nil, limits: FrameLimits = .default,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let expected = Outcome(frames: frames, error: error, leftover: 0)
        for plan in plans {
            let outcome = decode(input, plan: plan, limits: limits)
            #expect(outcome.frames.count == expected.frames.count, "\(plan): frame count", sourceLocation: sourceLocation)
            #expect(outcome == expected, "\(plan)", sourceLocation: sourceLocation)
        }
    }
}
