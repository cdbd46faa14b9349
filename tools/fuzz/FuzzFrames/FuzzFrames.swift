// libFuzzer target for the AAP frame layer: `tools/fuzz/run FuzzFrames 60` (see tools/fuzz/README.md).
// In a plain `swift build` this file has no top-level code, so the product is a program that
// does nothing; only `--sanitize fuzzer` links libFuzzer's main, which calls the entry point.
import DashportFrames

/// Runs arbitrary bytes through `FrameDecoder` and `MessageAssembler` and traps when an
/// invariant breaks (libFuzzer then saves the input as a crash):
/// - decoding all at once, in input-derived random splits, and byte by byte gives the same
///   frames and the same error;
/// - the decoded frames re-encode to exactly the bytes they were decoded from;
/// - every reassembled message survives fragment → frame → decode → assemble unchanged, and
///   every frame the fragmenter makes fits the send limit.
/// Both the default limits and tight ones (so the cap errors are reachable with short inputs).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrames(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    for limits in [FrameLimits.default, tightLimits] {
        check(input, limits: limits)
    }
    return 0
}

private let tightLimits = FrameLimits(maxReceivePayload: 48, maxMessageSize: 96, maxPendingBytes: 160)

private struct Outcome: Equatable {
    var frames: [Frame] = []
    var error: FrameError?
    var leftover = 0
}

private func decode(_ input: [UInt8], chunks: [Range<Int>], limits: FrameLimits) -> Outcome {
    var decoder = FrameDecoder(limits: limits)
    var outcome = Outcome()
    for range in chunks {
        decoder.feed(input[range])
        do {
            while let frame = try decoder.next() { outcome.frames.append(frame) }
        } catch {
            outcome.error = error
            return outcome
        }
    }
    outcome.leftover = decoder.bufferedByteCount
    return outcome
}

/// Chunk boundaries from a SplitMix64 stream seeded with an FNV-1a hash of the input.
private func randomChunks(_ input: [UInt8]) -> [Range<Int>] {
    var state: UInt64 = input.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    var ranges: [Range<Int>] = []
    var start = 0
    while start < input.count {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        let end = min(input.count, start + 1 + Int(z % 24))
        ranges.append(start..<end)
        start = end
    }
    return ranges
}

private func check(_ input: [UInt8], limits: FrameLimits) {
    let whole = decode(input, chunks: input.isEmpty ? [] : [0..<input.count], limits: limits)
    let split = decode(input, chunks: randomChunks(input), limits: limits)
    precondition(split == whole, "random splits decoded differently from the whole input")
    if input.count <= 4096 {
        let bytewise = decode(input, chunks: (0..<input.count).map { $0..<$0 + 1 }, limits: limits)
        precondition(bytewise == whole, "byte-by-byte feeding decoded differently from the whole input")
    }

    let reencoded = whole.frames.flatMap { $0.encoded() }
    precondition(input.starts(with: reencoded), "decoded frames do not re-encode to their input bytes")
    if whole.error == nil {
        precondition(reencoded.count + whole.leftover == input.count, "decoder lost or invented bytes")
    }

    var assembler = MessageAssembler(limits: limits)
    for frame in whole.frames {
        // Assembler errors are per channel; keep going to reach states after them.
        guard let message = try? assembler.add(header: frame.header, plaintext: frame.payload) else { continue }
        precondition(message.bytes.count <= limits.maxMessageSize, "assembled message over the cap")
        roundTrip(message, limits: limits)
    }
    precondition(assembler.pendingByteCount >= 0 && assembler.pendingByteCount <= limits.maxPendingBytes,
                 "pending byte count out of range")
}

private func roundTrip(_ message: AssembledMessage, limits: FrameLimits) {
    let frames = Fragmenter.plaintextFrames(channel: message.channel, message: message.bytes,
                                            control: message.flags.contains(.control), limits: limits)
    let bytes = frames.flatMap { $0.encoded() }
    for frame in frames {
        precondition(frame.encoded().count + FrameLimits.tlsRecordOverhead <= limits.maxSendWireFrame,
                     "fragmenter made a frame that would exceed the send limit once encrypted")
    }
    var decoder = FrameDecoder()
    var assembler = MessageAssembler()
    decoder.feed(bytes)
    var result: [[UInt8]] = []
    do {
        while let frame = try decoder.next() {
            if let again = try assembler.add(header: frame.header, plaintext: frame.payload) {
                result.append(again.bytes)
            }
        }
    } catch {
        preconditionFailure("round trip of a \(message.bytes.count)-byte message failed: \(error)")
    }
    precondition(result == [message.bytes], "round trip changed the message")
}
