import DashportFrames

// Kept identical to the model in tools/fuzz/FuzzFrames/FuzzFrames.swift (a fuzz target is a
// single file, so it cannot share this one); FuzzCrashReplayTests checks kept inputs with it.

/// aap-protocol.md §1.5 written out as plainly as possible, to check `MessageAssembler` against.
/// Frames come from `FrameDecoder`, so every FIRST header has its total.
struct ReassemblyModel {
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
