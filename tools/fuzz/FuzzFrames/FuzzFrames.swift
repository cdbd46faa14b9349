// libFuzzer target for the AAP frame layer: `tools/fuzz/run FuzzFrames 60` (see tools/fuzz/README.md).
// In a plain `swift build` this file holds only declarations, so the product is a program that
// does nothing; only `--sanitize fuzzer` links libFuzzer's main, which calls the entry point.
import DashportFrames
import DashportRandom

/// Runs arbitrary bytes through `FrameDecoder` and `MessageAssembler` and traps when an
/// invariant breaks (libFuzzer then saves the input as a crash):
/// - decoding all at once, in input-derived random splits, and (short inputs) byte by byte
///   gives the same frames and the same error;
/// - the decoded frames re-encode to exactly the bytes they were decoded from;
/// - `MessageAssembler` gives the same messages, errors and counters as a plain model of §1.5;
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
    var random = SplitMix64(hashing: input)
    return random.pieces(covering: input.count, maxLength: 24)
}

private func check(_ input: [UInt8], limits: FrameLimits) {
    let whole = decode(input, chunks: input.isEmpty ? [] : [0..<input.count], limits: limits)
    let split = decode(input, chunks: randomChunks(input), limits: limits)
    precondition(split == whole, "random splits decoded differently from the whole input")
    // Byte by byte only for short inputs: on long ones it triples the cost per run, and the
    // 1–24-byte random splits already cut through every header.
    if input.count <= 64 {
        let bytewise = decode(input, chunks: (0..<input.count).map { $0..<$0 + 1 }, limits: limits)
        precondition(bytewise == whole, "byte-by-byte feeding decoded differently from the whole input")
    }

    let reencoded = whole.frames.flatMap { $0.encoded() }
    precondition(input.starts(with: reencoded), "decoded frames do not re-encode to their input bytes")
    if whole.error == nil {
        precondition(reencoded.count + whole.leftover == input.count, "decoder lost or invented bytes")
    }

    var assembler = MessageAssembler(limits: limits)
    var model = ReassemblyModel(limits: limits)
    for frame in whole.frames {
        // Assembler errors are per channel; keep going to reach states after them.
        let result: Result<AssembledMessage?, FrameError>
        do throws(FrameError) {
            result = .success(try assembler.add(header: frame.header, plaintext: frame.payload))
        } catch {
            result = .failure(error)
        }
        precondition(result == model.add(frame), "assembler disagrees with the reassembly model")
        precondition(
            assembler.pendingByteCount == model.pending && assembler.discardedMessageCount == model.discarded,
            "assembler counters disagree with the reassembly model")
        if case let .success(message?) = result { roundTrip(message, limits: limits) }
    }
}

/// aap-protocol.md §1.5 written out as plainly as possible, to check `MessageAssembler` against.
/// Frames come from `FrameDecoder`, so every FIRST header has its total.
private struct ReassemblyModel {
    let limits: FrameLimits
    var partials: [UInt8: (flags: FrameFlags, total: Int, bytes: [UInt8])] = [:]
    var discarded = 0
    /// Declared totals of unfinished messages.
    var pending: Int { partials.values.reduce(0) { $0 + $1.total } }

    init(limits: FrameLimits) { self.limits = limits }

    mutating func add(_ frame: Frame) -> Result<AssembledMessage?, FrameError> {
        let channel = frame.header.channel
        let flags = frame.header.flags
        let bytes = frame.payload
        let max = limits.maxMessageSize
        switch flags.rawValue & 0x03 {
        case 0x03:
            if partials.removeValue(forKey: channel) != nil { discarded += 1 }
            if bytes.count > max { return .failure(.messageTooLarge(channel: channel, length: bytes.count, limit: max)) }
            return .success(AssembledMessage(channel: channel, flags: flags, bytes: bytes))
        case 0x01:
            if partials.removeValue(forKey: channel) != nil { discarded += 1 }
            let total = Int(frame.header.totalLength ?? UInt32.max)
            if total > max { return .failure(.messageTooLarge(channel: channel, length: total, limit: max)) }
            if bytes.count > max { return .failure(.messageTooLarge(channel: channel, length: bytes.count, limit: max)) }
            if bytes.count > total {
                return .failure(.totalLengthMismatch(channel: channel, declared: total, actual: bytes.count))
            }
            if pending + total > limits.maxPendingBytes {
                return .failure(
                    .pendingBytesExceeded(
                        channel: channel, pending: pending + total,
                        limit: limits.maxPendingBytes))
            }
            partials[channel] = (flags, total, bytes)
            return .success(nil)
        default:
            let isLast = flags.rawValue & 0x03 == 0x02
            guard let partial = partials.removeValue(forKey: channel) else {
                return .failure(.continuationWithoutFirst(channel: channel, type: isLast ? .last : .middle))
            }
            let joined = partial.bytes + bytes
            if joined.count > max { return .failure(.messageTooLarge(channel: channel, length: joined.count, limit: max)) }
            if joined.count > partial.total || (isLast && joined.count != partial.total) {
                return .failure(.totalLengthMismatch(channel: channel, declared: partial.total, actual: joined.count))
            }
            if isLast { return .success(AssembledMessage(channel: channel, flags: partial.flags, bytes: joined)) }
            partials[channel] = (partial.flags, partial.total, joined)
            return .success(nil)
        }
    }
}

private func roundTrip(_ message: AssembledMessage, limits: FrameLimits) {
    let frames = Fragmenter.plaintextFrames(
        channel: message.channel, message: message.bytes,
        control: message.flags.contains(.control), limits: limits)
    let bytes = frames.flatMap { $0.encoded() }
    for frame in frames {
        precondition(
            frame.encoded().count + FrameLimits.tlsRecordOverhead <= limits.maxSendWireFrame,
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
