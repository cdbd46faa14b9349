/// One AAP frame: a header and its wire payload (TLS ciphertext when the header says encrypted).
public struct Frame: Sendable, Hashable {
    public var header: FrameHeader
    /// The bytes that follow the header on the wire; `header.payloadLength` of them.
    public var payload: [UInt8]

    /// Pairs a header with its payload; `header.payloadLength` must equal `payload.count`.
    public init(header: FrameHeader, payload: [UInt8]) {
        precondition(
            Int(header.payloadLength) == payload.count,
            "Frame: header says \(header.payloadLength) payload bytes, got \(payload.count)")
        self.header = header
        self.payload = payload
    }

    /// Builds the header from the parts; the payload must fit the 16-bit length field.
    public init(channel: UInt8, flags: FrameFlags, totalLength: UInt32? = nil, payload: [UInt8]) {
        precondition(payload.count <= Int(UInt16.max), "Frame: payload of \(payload.count) bytes exceeds 65535")
        self.init(
            header: FrameHeader(
                channel: channel, flags: flags, payloadLength: UInt16(payload.count),
                totalLength: totalLength),
            payload: payload
        )
    }

    /// Header plus payload, ready for the transport.
    public func encoded() -> [UInt8] {
        precondition(
            Int(header.payloadLength) == payload.count,
            "Frame: header says \(header.payloadLength) payload bytes, got \(payload.count)")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(header.encodedSize + payload.count)
        header.encode(into: &bytes)
        bytes.append(contentsOf: payload)
        return bytes
    }
}

/// The 2-byte big-endian message id that starts every reassembled plaintext message (§1.6).
public enum MessageID {
    /// `id` (big-endian) followed by `body`: a whole plaintext message.
    public static func encode(_ id: UInt16, body: some Sequence<UInt8>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(2 + body.underestimatedCount)
        bytes.append(UInt8(truncatingIfNeeded: id >> 8))
        bytes.append(UInt8(truncatingIfNeeded: id))
        // One block copy for an array or a slice, even through the generic: called unspecialised
        // from the link, the plain append went byte by byte (2.1% of a reactor answering
        // GET_CHILDREN, issue 22, item 2).
        let appended: Void? = body.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        if appended == nil { bytes.append(contentsOf: body) }
        return bytes
    }

    /// The id at the start of `message`, or `nil` when it is shorter than 2 bytes.
    public static func decode(_ message: some Collection<UInt8>) -> UInt16? {
        var iterator = message.makeIterator()
        guard let high = iterator.next(), let low = iterator.next() else { return nil }
        return UInt16(high) << 8 | UInt16(low)
    }
}
