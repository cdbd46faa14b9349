/// A whole plaintext message put back together from one or more frames.
public struct AssembledMessage: Sendable, Hashable {
    public var channel: UInt8
    /// Flags of the frame that started the message (FIRST or BULK).
    public var flags: FrameFlags
    /// Whether the starting frame was encrypted (AAP decides encryption per frame, §1.5).
    public var encrypted: Bool
    /// The plaintext message: 2-byte big-endian message id, then the body.
    public var bytes: [UInt8]

    public init(channel: UInt8, flags: FrameFlags, encrypted: Bool? = nil, bytes: [UInt8]) {
        self.channel = channel
        self.flags = flags
        self.encrypted = encrypted ?? flags.contains(.encrypted)
        self.bytes = bytes
    }

    /// The message id, or `nil` when the message is shorter than 2 bytes.
    public var messageId: UInt16? { MessageID.decode(bytes) }

    /// Everything after the message id (empty when there is no full id).
    public var body: ArraySlice<UInt8> { bytes.dropFirst(2) }
}

/// Per-channel reassembly of decrypted frame payloads into whole messages (aap-protocol.md §1.5).
///
/// One message can be in progress per channel; frames of different channels interleave. FIRST
/// or BULK on a channel silently discards that channel's unfinished message (counted in
/// ``discardedMessageCount``); MIDDLE or LAST with nothing in progress is an error. A message
/// ends on LAST (an empty LAST is fine, §8.2). The FIRST frame's total is a sanity check: going
/// over it, or ending short of it, is an error. After any error the channel's partial message is
/// gone and other channels are untouched.
public struct MessageAssembler: Sendable {
    private struct Partial: Sendable {
        var flags: FrameFlags
        /// The FIRST frame's total; `nil` only for a hand-built header whose flags were changed.
        var declared: Int?
        var bytes: [UInt8]
        /// Bytes counted against `maxPendingBytes`: the declared total (reserved up front) or,
        /// without one, what has arrived.
        var charge: Int { declared ?? bytes.count }
    }

    public let limits: FrameLimits
    private var partials: [UInt8: Partial] = [:]
    /// Sum of `charge` over `partials`.
    public private(set) var pendingByteCount = 0
    /// Unfinished messages thrown away because a FIRST or BULK frame started a new one.
    public private(set) var discardedMessageCount = 0

    public init(limits: FrameLimits = .default) {
        self.limits = limits
    }

    /// Whether a message is in progress on `channel`.
    public func hasPartialMessage(channel: UInt8) -> Bool { partials[channel] != nil }

    /// Takes one frame's header and its decrypted payload; returns the message it completes.
    public mutating func add(header: FrameHeader, plaintext: [UInt8]) throws(FrameError) -> AssembledMessage? {
        let channel = header.channel
        switch header.type {
        case .bulk:
            discardPartial(channel: channel)
            try checkMessageSize(plaintext.count, channel: channel)
            return AssembledMessage(channel: channel, flags: header.flags, bytes: plaintext)
        case .first:
            discardPartial(channel: channel)
            return try start(header: header, plaintext: plaintext)
        case .middle, .last:
            return try `continue`(header: header, plaintext: plaintext)
        }
    }

    private mutating func start(header: FrameHeader, plaintext: [UInt8]) throws(FrameError) -> AssembledMessage? {
        let channel = header.channel
        let declared = header.totalLength.map { Int($0) }
        if let declared { try checkMessageSize(declared, channel: channel) }
        try checkMessageSize(plaintext.count, channel: channel)
        if let declared, plaintext.count > declared {
            throw .totalLengthMismatch(channel: channel, declared: declared, actual: plaintext.count)
        }
        var partial = Partial(flags: header.flags, declared: declared, bytes: plaintext)
        try checkPending(adding: partial.charge, channel: channel)
        if let declared { partial.bytes.reserveCapacity(declared) }
        partials[channel] = partial
        pendingByteCount += partial.charge
        return nil
    }

    private mutating func `continue`(header: FrameHeader, plaintext: [UInt8]) throws(FrameError) -> AssembledMessage? {
        let channel = header.channel
        // Taken out of the dictionary so appending does not copy; put back only if unfinished.
        guard var partial = partials.removeValue(forKey: channel) else {
            throw .continuationWithoutFirst(channel: channel, type: header.type)
        }
        pendingByteCount -= partial.charge
        let size = partial.bytes.count + plaintext.count
        try checkMessageSize(size, channel: channel)
        if let declared = partial.declared {
            let finished = header.type == .last
            if size > declared || (finished && size != declared) {
                throw .totalLengthMismatch(channel: channel, declared: declared, actual: size)
            }
        }
        if header.type == .last {
            partial.bytes.append(contentsOf: plaintext)
            return AssembledMessage(channel: channel, flags: partial.flags, bytes: partial.bytes)
        }
        let charge = partial.declared ?? size
        try checkPending(adding: charge, channel: channel)
        partial.bytes.append(contentsOf: plaintext)
        partials[channel] = partial
        pendingByteCount += charge
        return nil
    }

    private mutating func discardPartial(channel: UInt8) {
        guard let old = partials.removeValue(forKey: channel) else { return }
        pendingByteCount -= old.charge
        discardedMessageCount += 1
    }

    private func checkMessageSize(_ size: Int, channel: UInt8) throws(FrameError) {
        guard size <= limits.maxMessageSize else {
            throw .messageTooLarge(channel: channel, length: size, limit: limits.maxMessageSize)
        }
    }

    private func checkPending(adding charge: Int, channel: UInt8) throws(FrameError) {
        let pending = pendingByteCount + charge
        guard pending <= limits.maxPendingBytes else {
            throw .pendingBytesExceeded(channel: channel, pending: pending, limit: limits.maxPendingBytes)
        }
    }
}
