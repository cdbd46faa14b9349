/// Splits the inbound byte stream into frames (aap-protocol.md §1.1).
///
/// Sans-IO: feed it whatever the transport read, then call ``next()`` until it returns `nil`
/// (more bytes needed). Partial input is buffered; each payload is copied out exactly once.
/// Limits are checked as soon as the header is in, before the payload is buffered:
/// a length field over ``FrameLimits/maxReceivePayload`` and a FIRST frame announcing a message
/// over ``FrameLimits/maxMessageSize`` are errors. A framing error cannot be recovered from (the
/// stream has lost sync), so once ``next()`` has thrown it throws the same error every time.
///
/// The decoder does not decrypt and does not reassemble: encrypted payloads come out as
/// ciphertext, and fragments go to a ``MessageAssembler`` after decryption.
public struct FrameDecoder: Sendable {
    public let limits: FrameLimits
    private var buffer: [UInt8] = []
    /// Start of the unconsumed bytes in `buffer`.
    private var readIndex = 0
    private var failure: FrameError?

    public init(limits: FrameLimits = .default) {
        self.limits = limits
    }

    /// Bytes fed but not yet returned as frames.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Bytes of buffer the decoder holds now (its capacity): none once every frame fed is out.
    public var heldCapacity: Int { buffer.capacity }

    /// The error that stopped the decoder, if any.
    public var error: FrameError? { failure }

    /// Appends bytes read from the transport.
    public mutating func feed(_ bytes: some Collection<UInt8>) {
        guard !bytes.isEmpty else { return }
        // Nothing buffered and a whole array read from the transport: keep that array rather than
        // copy it into a new one (issue 22, item 2: one buffer from `recv` to the frames).
        if buffer.isEmpty, let array = bytes as? [UInt8] {
            buffer = array
            readIndex = 0
            return
        }
        // Drop consumed bytes once they outweigh the live ones, so each byte moves O(1) times.
        if readIndex > 0 && readIndex >= bufferedByteCount {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
        // Arrays, slices and buffers are appended as one block copy, even through the generic.
        let appended: Void? = bytes.withContiguousStorageIfAvailable { buffer.append(contentsOf: $0) }
        if appended == nil { buffer.append(contentsOf: bytes) }
    }

    /// The next complete frame, or `nil` when more bytes are needed.
    public mutating func next() throws(FrameError) -> Frame? {
        if let failure { throw failure }
        let available = bufferedByteCount
        guard available >= FrameHeader.baseSize else { return nil }

        let channel = buffer[readIndex]
        let flags = FrameFlags(rawValue: buffer[readIndex + 1])
        let length = Int(buffer[readIndex + 2]) << 8 | Int(buffer[readIndex + 3])
        guard length <= limits.maxReceivePayload else {
            return try fail(.payloadTooLarge(channel: channel, length: length, limit: limits.maxReceivePayload))
        }

        let headerSize = FrameHeader.encodedSize(flags: flags)
        guard available >= headerSize else { return nil }
        var total: UInt32?
        if headerSize == FrameHeader.firstSize {
            var value: UInt32 = 0
            for index in readIndex + 4..<readIndex + 8 { value = value << 8 | UInt32(buffer[index]) }
            guard Int(value) <= limits.maxMessageSize else {
                return try fail(.messageTooLarge(channel: channel, length: Int(value), limit: limits.maxMessageSize))
            }
            total = value
        }

        guard available >= headerSize + length else { return nil }
        let payloadStart = readIndex + headerSize
        let payload = Array(buffer[payloadStart..<payloadStart + length])
        readIndex = payloadStart + length
        if readIndex == buffer.count {
            // Drained: the buffer goes, so an idle link holds none (issue 10: hundreds of idle cars
            // each kept the capacity of their largest read, up to 64 KiB). The next read allocates
            // one buffer of its own size.
            buffer = []
            readIndex = 0
        }
        let header = FrameHeader(channel: channel, flags: flags, payloadLength: UInt16(length), totalLength: total)
        return Frame(header: header, payload: payload)
    }

    private mutating func fail(_ error: FrameError) throws(FrameError) -> Frame? {
        failure = error
        throw error
    }
}
