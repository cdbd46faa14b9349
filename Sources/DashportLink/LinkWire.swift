package import DashportFrames
package import DashportTLS

/// One whole message as received: decrypted, reassembled, split into id and body.
package struct InboundMessage: Sendable, Hashable {
    package var channel: UInt8
    /// Whether the frame that started the message was encrypted (decided per frame, §1.5).
    package var encrypted: Bool
    package var messageId: UInt16
    package var body: ArraySlice<UInt8>
}

/// The frame I/O of one link, for both roles: bytes → frames → decrypt → reassemble on the way
/// in; message → fragments → one TLS record each → frames on the way out (aap-protocol.md §1, §2.8).
///
/// Both directions go through the one `TLSSession`, strictly in call order, so the TLS record
/// sequence numbers match the order of frames on the wire. It does not interpret messages.
package struct LinkWire {
    package let limits: FrameLimits
    /// TLS in every build of the server (see ``RecordLayer``).
    package private(set) var tls: any RecordLayer
    private var decoder: FrameDecoder
    private var assembler: MessageAssembler
    /// Sees every message in and out except ENCAPSULATED_SSL (see ``TappedMessage``).
    package var tap: WireTap?

    package init(tls: any RecordLayer, limits: FrameLimits) {
        self.tls = tls
        self.limits = limits
        self.decoder = FrameDecoder(limits: limits)
        self.assembler = MessageAssembler(limits: limits)
    }

    /// This wire in its state (buffered bytes, unfinished messages, counters) over `tls`, which
    /// must be in the state this wire's layer is in: the fuzz drivers copy a linked pair per input
    /// (``PhoneLink/copy(recordLayer:)``).
    package func copy(over tls: any RecordLayer) -> LinkWire {
        var copy = self
        copy.tls = tls
        return copy
    }

    /// A tighter cap on unfinished messages than the limits' `maxPendingBytes` while the peer is
    /// not yet authenticated; nil once it is.
    package var pendingLimitBeforeAuthentication: Int?

    /// While true (the phone role until AUTH_COMPLETE) every frame must be one a head unit's setup
    /// can contain, else ``nextMessage()`` throws ``LinkCloseReason/notASetupFrame(channel:type:length:)``
    /// at that frame (see ``isSetupFrame(_:)``).
    package var setupFramesOnly = false
    /// While ``setupFramesOnly``, at most this many frames are taken; the next one throws
    /// ``LinkCloseReason/setupFramesExceeded(limit:)``.
    package var setupFrameLimit = Int.max
    /// Frames taken while ``setupFramesOnly``.
    package private(set) var setupFrameCount = 0

    /// Frames that came on another channel while a message's fragments were under way (after
    /// its FIRST, before its LAST). The frame layer allows it (§1.4) and this side reassembles
    /// them, but aasdk-old keeps one reassembly buffer per link and aborts: the emulated car
    /// counts them so a test can say a phone never does it.
    package private(set) var framesBetweenFragments = 0
    /// The channel whose fragmented message is under way.
    private var fragmentedChannel: UInt8?

    /// Bytes charged to unfinished messages (see ``MessageAssembler/pendingByteCount``).
    package var pendingMessageByteCount: Int { assembler.pendingByteCount }

    /// Bytes received but not yet returned as part of a message frame.
    package var bufferedByteCount: Int { decoder.bufferedByteCount }

    /// Appends bytes read from the transport.
    package mutating func feed(_ bytes: some Collection<UInt8>) {
        decoder.feed(bytes)
    }

    /// The next complete message, or `nil` when more bytes are needed. Frames are decrypted one by
    /// one, and the call returns as soon as a message completes, so a caller that handles each
    /// message before asking for the next sees the TLS handshake finish before the first
    /// encrypted frame is decrypted.
    package mutating func nextMessage() throws(LinkCloseReason) -> InboundMessage? {
        while true {
            let frame: Frame?
            do {
                frame = try decoder.next()
            } catch {
                throw .badFrame(error)
            }
            guard let frame else { return nil }
            noteFragmentOrder(frame.header)
            if setupFramesOnly {
                setupFrameCount += 1
                guard setupFrameCount <= setupFrameLimit else { throw .setupFramesExceeded(limit: setupFrameLimit) }
                guard Self.isSetupFrame(frame.header) else {
                    throw .notASetupFrame(channel: frame.header.channel, type: frame.header.type, length: Int(frame.header.payloadLength))
                }
            }
            try checkPlaintextAllowed(frame)
            let plaintext = try decryptIfNeeded(frame)
            let assembled: AssembledMessage?
            do {
                assembled = try assembler.add(header: frame.header, plaintext: plaintext)
            } catch {
                throw .badFrame(error)
            }
            if let cap = pendingLimitBeforeAuthentication, assembler.pendingByteCount > cap {
                throw .badFrame(.pendingBytesExceeded(channel: frame.header.channel, pending: assembler.pendingByteCount, limit: cap))
            }
            guard let assembled else { continue }
            guard let id = assembled.messageId else {
                throw .missingMessageId(channel: assembled.channel, length: assembled.bytes.count)
            }
            let message = InboundMessage(
                channel: assembled.channel, encrypted: assembled.encrypted,
                messageId: id, body: assembled.body)
            report(.received, channel: message.channel, messageId: id, encrypted: message.encrypted, body: message.body)
            return message
        }
    }

    private mutating func noteFragmentOrder(_ header: FrameHeader) {
        if let open = fragmentedChannel, header.channel != open { framesBetweenFragments += 1 }
        switch header.type {
        case .first: fragmentedChannel = header.channel
        case .last where header.channel == fragmentedChannel: fragmentedChannel = nil
        default: break
        }
    }

    /// Whether a frame can be part of a head unit's setup (VERSION_REQUEST, ENCAPSULATED_SSL flights,
    /// AUTH_COMPLETE, pings; aap-protocol.md §2.2): on channel 0, and carrying bytes unless it is
    /// the empty LAST that ends a message of a multiple of 16,384 bytes (§8.2). No head unit sends
    /// an empty FIRST, MIDDLE or BULK frame, so such a frame before authentication is a flood
    /// (it costs parsing and holds nothing, so no byte cap would catch it early).
    package static func isSetupFrame(_ header: FrameHeader) -> Bool {
        header.channel == 0 && (header.payloadLength > 0 || header.type == .last)
    }

    /// Control messages a peer may still send in the clear once TLS is up: AUTH_COMPLETE and pings,
    /// which aasdk and headunit send plaintext after the handshake (aap-protocol.md §2.8, §8.4).
    package static let plaintextAfterTLS: Set<UInt16> = [ControlID.authComplete, ControlID.pingRequest, ControlID.pingResponse]

    /// Once TLS is established, a plaintext frame must be one of ``plaintextAfterTLS`` sent whole
    /// (BULK) on channel 0. Anything else in the clear could be injected by whoever sits on the
    /// path without the keys, so it ends the link before it is reassembled or dispatched.
    private func checkPlaintextAllowed(_ frame: Frame) throws(LinkCloseReason) {
        guard tls.isHandshakeComplete, !frame.header.flags.contains(.encrypted) else { return }
        let payload = frame.payload
        let id: UInt16? =
            frame.header.flags.type == .bulk && payload.count >= 2
            ? UInt16(payload[payload.startIndex]) << 8 | UInt16(payload[payload.startIndex + 1]) : nil
        guard frame.header.channel == 0, let id, Self.plaintextAfterTLS.contains(id) else {
            throw .plaintextAfterTLS(channel: frame.header.channel, messageId: id)
        }
    }

    private func decryptIfNeeded(_ frame: Frame) throws(LinkCloseReason) -> [UInt8] {
        guard frame.header.flags.contains(.encrypted) else { return frame.payload }
        // An empty LAST frame ends a message that is a multiple of 16384 bytes: no record (§8.2).
        if frame.payload.isEmpty { return [] }
        guard tls.isHandshakeComplete else { throw .tlsFailure(.notEstablished) }
        // One TLS record per frame (design "The wire", aap-protocol.md §2.8): a frame whose payload
        // is not exactly one record is refused before OpenSSL sees it, so two records are never
        // joined into one plaintext.
        guard let recordLength = Self.singleRecordLength(frame.payload), recordLength == frame.payload.count else {
            throw .tlsFailure(.decryptFailed("frame payload of \(frame.payload.count) bytes is not exactly one TLS record"))
        }
        do {
            return try tls.decrypt(frame.payload)
        } catch {
            throw .tlsFailure(error)
        }
    }

    /// The length (header included) the first TLS record in `payload` declares, or nil when the
    /// payload is shorter than a record header.
    static func singleRecordLength(_ payload: [UInt8]) -> Int? {
        guard payload.count >= 5 else { return nil }
        return 5 + (Int(payload[3]) << 8 | Int(payload[4]))
    }

    /// The wire bytes (one or more frames) of message `id` + `body` on `channel`. Each fragment
    /// of an encrypted message is one TLS record. Control-namespace ids (2…0x7FFF) on a non-zero
    /// channel get the control flag, so CHANNEL_OPEN frames go out as 0x0F (§1.2).
    package func encode(
        channel: UInt8, messageId: UInt16, body: some Collection<UInt8>, encrypted: Bool
    ) throws(LinkCloseReason) -> [UInt8] {
        let message = MessageID.encode(messageId, body: body)
        report(.sent, channel: channel, messageId: messageId, encrypted: encrypted, body: body)
        let control = channel != 0 && messageId >= 2 && messageId < 0x8000
        let fragments = Fragmenter.fragments(channel: channel, message: message, encrypted: encrypted, control: control, limits: limits)
        // One allocation for every frame: headers (8 bytes at most) and, encrypted, each record
        // written by OpenSSL straight after its header, whose length is filled in after.
        let room = encrypted ? TLSSession.maximumRecordExpansion : 0
        let capacity = fragments.reduce(0) { $0 + FrameHeader.firstSize + $1.plaintext.count + room }
        var failure: TLSError?
        let wire = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            for fragment in fragments {
                var header = FrameHeader(
                    channel: fragment.channel, flags: fragment.flags, payloadLength: 0, totalLength: fragment.totalLength)
                // Plaintext, or the empty LAST of an encrypted message (no record, §8.2).
                guard encrypted && !fragment.plaintext.isEmpty else {
                    header.payloadLength = UInt16(fragment.plaintext.count)
                    count += header.write(into: buffer, at: count)
                    let payload = UnsafeMutableBufferPointer(rebasing: buffer[count..<(count + fragment.plaintext.count)])
                    _ = payload.initialize(from: fragment.plaintext)
                    count += fragment.plaintext.count
                    continue
                }
                let headerStart = count
                let start = count + header.write(into: buffer, at: count)
                let length: Int
                do throws(TLSError) {
                    length = try tls.encrypt(
                        fragment.plaintext, into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[start...])))
                } catch {
                    failure = error
                    return
                }
                precondition(length <= Int(UInt16.max), "LinkWire: a TLS record of \(length) bytes does not fit a frame")
                buffer[headerStart + 2] = UInt8(truncatingIfNeeded: length >> 8)
                buffer[headerStart + 3] = UInt8(truncatingIfNeeded: length)
                count = start + length
            }
        }
        if let failure { throw .tlsFailure(failure) }
        return wire
    }

    private func report(
        _ direction: TappedMessage.Direction, channel: UInt8, messageId: UInt16, encrypted: Bool, body: some Collection<UInt8>
    ) {
        guard let tap, !(channel == 0 && messageId == ControlID.encapsulatedSSL) else { return }
        tap(TappedMessage(direction: direction, channel: channel, messageId: messageId, encrypted: encrypted, body: Array(body)))
    }

    /// Message id + body size, checked against the message cap before anything is encrypted.
    package func fits(bodyCount: Int) -> Bool {
        bodyCount + 2 <= limits.maxMessageSize
    }
}
