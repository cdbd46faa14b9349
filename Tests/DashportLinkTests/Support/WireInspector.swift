import DashportFrames
import DashportLink
import Testing

/// Reads a recorded byte stream back as frames, for assertions about what went on the wire.
enum WireInspector {
    struct WireFrame {
        var header: FrameHeader
        var payload: [UInt8]
        /// Header plus payload: the frame's size on the wire.
        var wireSize: Int { header.encodedSize + payload.count }
        /// The message id of a plaintext frame that starts a message.
        var plainMessageId: UInt16? {
            guard !header.flags.contains(.encrypted), header.type == .bulk || header.type == .first else { return nil }
            return MessageID.decode(payload)
        }
    }

    /// Every frame in `bytes`, which must end on a frame boundary.
    static func frames(_ bytes: [UInt8]) throws -> [WireFrame] {
        var decoder = FrameDecoder(limits: FrameLimits(maxReceivePayload: 65535, maxMessageSize: 1 << 24))
        decoder.feed(bytes)
        var frames: [WireFrame] = []
        while let frame = try decoder.next() {
            frames.append(WireFrame(header: frame.header, payload: frame.payload))
        }
        #expect(decoder.bufferedByteCount == 0, "the stream ends inside a frame")
        return frames
    }

    /// A plaintext BULK frame on `channel` carrying message `id` + `body`, built by hand.
    static func plainFrame(channel: UInt8 = 0, id: UInt16, body: [UInt8], flags: UInt8 = 0x03) -> [UInt8] {
        let message = MessageID.encode(id, body: body)
        return Frame(channel: channel, flags: FrameFlags(rawValue: flags), payload: message).encoded()
    }
}

extension LinkCloseReason {
    /// The case without its payload, for tests that only care which kind of close happened.
    var kind: String {
        switch self {
        case .notAAP: "notAAP"
        case .notAAPServer: "notAAPServer"
        case .versionMismatch: "versionMismatch"
        case .versionRejected: "versionRejected"
        case .badFrame: "badFrame"
        case .missingMessageId: "missingMessageId"
        case .unlistedChannel: "unlistedChannel"
        case .channelNotOpen: "channelNotOpen"
        case .tlsFailure: "tlsFailure"
        case .plaintextAfterTLS: "plaintextAfterTLS"
        case .handshakeTimeout: "handshakeTimeout"
        case .setupInputExceeded: "setupInputExceeded"
        case .notASetupFrame: "notASetupFrame"
        case .setupFramesExceeded: "setupFramesExceeded"
        case .idleTimeout: "idleTimeout"
        case .undecodable: "undecodable"
        case .unexpectedMessage: "unexpectedMessage"
        case .authenticationFailed: "authenticationFailed"
        case .peerByeBye: "peerByeBye"
        case .byeBye: "byeBye"
        }
    }
}
