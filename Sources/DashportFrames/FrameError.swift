/// Why the frame layer refused input. Every case ends the connection: after a framing error the
/// byte stream cannot be resynchronised.
public enum FrameError: Error, Sendable, Hashable {
    /// A frame's length field exceeds ``FrameLimits/maxReceivePayload``.
    case payloadTooLarge(channel: UInt8, length: Int, limit: Int)
    /// A message's declared total, or its running size, exceeds ``FrameLimits/maxMessageSize``.
    case messageTooLarge(channel: UInt8, length: Int, limit: Int)
    /// A MIDDLE or LAST frame arrived on a channel with no message in progress.
    case continuationWithoutFirst(channel: UInt8, type: FrameType)
    /// The reassembled plaintext length disagrees with the total announced in the FIRST frame
    /// (`actual` is the running size when it overshoots, or the final size on LAST).
    case totalLengthMismatch(channel: UInt8, declared: Int, actual: Int)
    /// Unfinished messages over all channels would hold more than ``FrameLimits/maxPendingBytes``.
    case pendingBytesExceeded(channel: UInt8, pending: Int, limit: Int)
}

extension FrameError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .payloadTooLarge(channel, length, limit):
            "frame on channel \(channel) declares a \(length)-byte payload, over the \(limit)-byte limit"
        case let .messageTooLarge(channel, length, limit):
            "message on channel \(channel) is \(length) bytes, over the \(limit)-byte limit"
        case let .continuationWithoutFirst(channel, type):
            "\(type) frame on channel \(channel) without a FIRST frame before it"
        case let .totalLengthMismatch(channel, declared, actual):
            "message on channel \(channel) declared \(declared) bytes in its FIRST frame but has \(actual)"
        case let .pendingBytesExceeded(channel, pending, limit):
            "unfinished messages would hold \(pending) bytes (channel \(channel) adding), over the \(limit)-byte limit"
        }
    }
}
