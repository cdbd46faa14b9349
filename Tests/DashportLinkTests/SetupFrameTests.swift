import DashportFrames
import DashportHeadUnit
import DashportLink
import DashportTestSupport
import Testing

/// Until AUTH_COMPLETE the phone takes only frames a head unit's setup can contain (issue 10, the
/// flooder): a frame on another channel than 0, or an empty frame that does not end a message,
/// closes the link at that frame with ``LinkCloseReason/notASetupFrame(channel:type:length:)``,
/// and more frames than a setup needs close it with ``LinkCloseReason/setupFramesExceeded(limit:)``.
@Suite struct SetupFrameTests {
    static let versionRequest = UnauthenticatedLimitsTests.versionRequest
    /// VERSION_RESPONSE 1.6, status 0: what the phone answers before any setup frame is judged.
    static let versionResponse: [UInt8] = [0, 0x03, 0, 8, 0x00, 0x02, 0x00, 0x01, 0x00, 0x06, 0x00, 0x00]

    /// The setup a real head unit (the emulator's, with the test identities) sends up to and
    /// including AUTH_COMPLETE: its frames and bytes, read back from the wire.
    static func realSetup() throws -> (frames: Int, bytes: Int) {
        let link = try LinkHarness()
        link.connectAndSettle()
        try #require(link.phone.phase == .running)
        var decoder = FrameDecoder()
        decoder.feed(link.headUnitWire)
        var (frames, bytes) = (0, 0)
        while let frame = try decoder.next() {
            frames += 1
            bytes += frame.header.encodedSize + frame.payload.count
            // AUTH_COMPLETE (id 4) is the setup's last message; it goes out whole and in the clear.
            if frame.header.channel == 0, frame.header.type == .bulk, frame.payload.prefix(2) == [0, 4] { return (frames, bytes) }
        }
        Issue.record("no AUTH_COMPLETE on the head unit's wire")
        return (frames, bytes)
    }

    /// Both setup caps leave a real setup a wide margin: it is a handful of frames and a few KiB.
    @Test func aRealSetupIsFarUnderBothSetupCaps() throws {
        let setup = try Self.realSetup()
        let defaults = LinkConfiguration()
        #expect(setup.frames <= 8, "VERSION_REQUEST, two TLS flights, AUTH_COMPLETE (4 when measured): \(setup.frames) frames")
        #expect(setup.frames * 16 <= defaults.unauthenticatedMaxFrames)
        #expect(setup.bytes <= 8 * 1024, "1,491 bytes when measured: \(setup.bytes)")
        #expect(setup.bytes * 8 <= defaults.unauthenticatedMaxInputBytes)
    }
}

extension SetupFrameTests {
    /// Frames no head unit sends before it authenticates, after a FIRST fragment that leaves a
    /// message open on channel 0 (what the benchmark's flooder sends; it then sent 64 K empty
    /// MIDDLE frames per 256 KiB, each parsed and "appended").
    static let notSetupFrames: [(frame: [UInt8], reason: LinkCloseReason)] = [
        ([0, 0x00, 0, 0], .notASetupFrame(channel: 0, type: .middle, length: 0)),
        ([0, 0x08, 0, 0], .notASetupFrame(channel: 0, type: .middle, length: 0)),  // "encrypted", empty
        ([0, 0x01, 0, 0, 0, 0, 0, 10], .notASetupFrame(channel: 0, type: .first, length: 0)),
        ([0, 0x03, 0, 0], .notASetupFrame(channel: 0, type: .bulk, length: 0)),
        ([3, 0x03, 0, 2, 0x80, 0x01], .notASetupFrame(channel: 3, type: .bulk, length: 2)),
        ([16, 0x09, 0, 1, 0, 0, 0, 10, 0xAA], .notASetupFrame(channel: 16, type: .first, length: 1)),
    ]

    @Test(arguments: 0..<notSetupFrames.count)
    func aFrameNoSetupContainsClosesTheLinkAtThatFrame(_ index: Int) throws {
        let (frame, reason) = Self.notSetupFrames[index]
        let link = PhoneLink(tls: try TestTLS.phoneSession())
        let actions = link.receive(Self.versionRequest + UnauthenticatedLimitsTests.first(declaring: 100) + frame, now: .zero)
        #expect(actions == [.send(Self.versionResponse), .event(.versionNegotiated(AAPVersion(major: 1, minor: 6))), .close(reason)])
        #expect(link.closeReason == reason)
        #expect(link.pendingMessageBytes == 100, "the open message is not reassembled further")
        #expect(link.receive([0, 0, 0, 0], now: .zero) == [], "nothing after the close is read")
    }

    @Test func theReasonSaysWhatTheFrameWas() {
        #expect(
            LinkCloseReason.notASetupFrame(channel: 0, type: .middle, length: 0).description
                == "empty MIDDLE frame of 0 bytes on channel 0 before authentication: no head unit's setup sends one")
        #expect(
            LinkCloseReason.setupFramesExceeded(limit: 256).description
                == "more than 256 frames received before authentication (a head unit's setup is a handful)")
    }

    /// The empty LAST that ends a message of a multiple of 16,384 bytes (aasdk, §8.2) is a setup
    /// frame: here it ends an empty ENCAPSULATED_SSL, which the phone tolerates.
    @Test func anEmptyLastFrameEndingASetupMessageIsTaken() throws {
        let link = PhoneLink(tls: try TestTLS.phoneSession())
        let encapsulatedSSLFirst: [UInt8] = [0, 0x01, 0, 2, 0, 0, 0, 2, 0x00, 0x03]
        let actions = link.receive(Self.versionRequest + encapsulatedSSLFirst + [0, 0x02, 0, 0], now: .zero)
        #expect(actions == [.send(Self.versionResponse), .event(.versionNegotiated(AAPVersion(major: 1, minor: 6)))])
        #expect(link.closeReason == nil)
        #expect(link.phase == .tlsHandshake)
    }

    /// Small frames that could be a setup's (one-byte MIDDLE fragments) are counted: the frame
    /// after the limit closes the link.
    @Test func moreFramesThanASetupNeedsCloseTheLink() throws {
        let link = PhoneLink(configuration: LinkConfiguration(unauthenticatedMaxFrames: 10), tls: try TestTLS.phoneSession())
        let oneByteMiddle: [UInt8] = [0, 0x00, 0, 1, 0xAA]
        _ = link.receive(Self.versionRequest + UnauthenticatedLimitsTests.first(declaring: 100), now: .zero)
        for _ in 0..<8 { _ = link.receive(oneByteMiddle, now: .zero) }
        #expect(link.closeReason == nil, "10 frames: at the limit")
        #expect(link.receive(oneByteMiddle, now: .zero) == [.close(.setupFramesExceeded(limit: 10))])
    }

    /// Once the car has authenticated, frames are no longer counted or judged as setup frames:
    /// with a limit of 10 setup frames, 20 service messages on channel 16 all arrive.
    @Test func afterAuthenticationFramesAreNotCountedOrJudged() throws {
        let link = try LinkHarness(phone: LinkConfiguration(unauthenticatedMaxFrames: 10))
        link.connectAndSettle()
        try #require(link.phone.phase == .running)
        for index in 0..<20 {
            link.perform(link.headUnit.sendUnchecked(channel: 16, messageId: 0x8001, body: [UInt8(index)], encrypted: true))
        }
        link.pump()
        #expect(link.phoneClose == nil)
        #expect(link.phoneMessages.filter { $0.id == 0x8001 }.map(\.body) == (0..<20).map { [UInt8($0)] })
    }
}
