import DashportFrames
import DashportHeadUnit
import DashportLink
import DashportMessages
import DashportTLS
import Testing

/// After TLS, only AUTH_COMPLETE and pings may arrive in the clear (aap-protocol.md §2.8, §8.4);
/// anything else could have been injected by whoever sits on the path without the keys, so it
/// closes the link before it reaches a service. And one frame carries exactly one TLS record.
@Suite struct PlaintextAfterTLSTests {
    private func runningLink() throws -> LinkHarness {
        let link = try LinkHarness()
        link.connectAndSettle()
        try #require(link.phone.phase == .running)
        try #require(link.phoneOpenedChannels.contains(16))
        return link
    }

    /// Service messages, key events, bye-bye and setup messages sent in the clear once linked are
    /// refused: the link closes and nothing is delivered to the services.
    @Test(arguments: [
        (channel: UInt8(16), id: UInt16(0x8001), body: [UInt8]([0x08, 0x01])),  // a media-channel request
        (channel: UInt8(8), id: UInt16(0x8001), body: [UInt8]([0x08, 0x00])),  // an input report (key event)
        (channel: UInt8(13), id: UInt16(0x8002), body: [UInt8]([0x08, 0x01])),  // MEDIA_PLAYBACK_INPUT
        (channel: UInt8(0), id: UInt16(15), body: [UInt8]([0x08, 0x01])),  // BYEBYE_REQUEST
        (channel: UInt8(0), id: UInt16(6), body: [UInt8]([])),  // SERVICE_DISCOVERY_RESPONSE
        (channel: UInt8(0), id: UInt16(3), body: [UInt8]([0x16, 0x03, 0x03])),  // ENCAPSULATED_SSL
        (channel: UInt8(16), id: UInt16(11), body: [UInt8]([0x08, 0x01])),  // a ping, but not on channel 0
    ])
    func plaintextServiceMessageClosesTheLink(channel: UInt8, id: UInt16, body: [UInt8]) throws {
        let link = try runningLink()
        let delivered = link.phoneMessages.count
        link.injectToPhone(WireInspector.plainFrame(channel: channel, id: id, body: body))
        link.pump()
        #expect(link.phoneClose == .plaintextAfterTLS(channel: channel, messageId: id))
        #expect(link.phoneMessages.count == delivered)
        #expect(!link.phoneEvents.contains { if case .byeByeReceived = $0 { true } else { false } })
    }

    /// The same message encrypted is delivered: the rule is about the clear, not the message.
    @Test func theSameMessageEncryptedIsDelivered() throws {
        let link = try runningLink()
        link.perform(link.headUnit.sendUnchecked(channel: 16, messageId: 0x8001, body: [0x08, 0x01], encrypted: true))
        link.pump()
        #expect(link.phoneClose == nil)
        #expect(link.phoneMessages.last?.id == 0x8001)
    }

    /// Plain pings in both directions keep working after TLS (aasdk sends them so).
    @Test func plainPingsAreStillAccepted() throws {
        let link = try runningLink()
        let request = AAP.PingRequest(timestamp: 42).serializedBytes()
        link.injectToPhone(WireInspector.plainFrame(id: 11, body: request))
        link.injectToPhone(WireInspector.plainFrame(id: 12, body: AAP.PingResponse(timestamp: 7).serializedBytes()))
        link.pump()
        #expect(link.phoneClose == nil)
        let answers = try WireInspector.frames(link.phoneWire).filter { $0.plainMessageId == 12 }
        #expect(answers.count == 1)
    }

    /// A plaintext fragment cannot continue (or start) a message after TLS: mixing an encrypted
    /// FIRST with a clear LAST would let an attacker append to a genuine message.
    @Test func plaintextFragmentAfterEncryptedFirstClosesTheLink() throws {
        let link = try runningLink()
        let body = [UInt8](repeating: 0x2A, count: 20_000)
        var frames: [WireInspector.WireFrame] = []
        for case .send(let bytes) in link.headUnit.sendUnchecked(channel: 16, messageId: 0x8001, body: body, encrypted: true) {
            frames += try WireInspector.frames(bytes)
        }
        let first = try #require(frames.first)
        try #require(first.header.type == .first)
        let delivered = link.phoneMessages.count
        link.injectToPhone(
            Frame(
                channel: 16, flags: first.header.flags, totalLength: first.header.totalLength,
                payload: first.payload
            ).encoded())
        let rest = 20_002 - 16_120
        link.injectToPhone(
            Frame(
                channel: 16, flags: FrameFlags(rawValue: 0x02),
                payload: [UInt8](repeating: 0x2A, count: rest)
            ).encoded())
        link.pump()
        #expect(link.phoneClose == .plaintextAfterTLS(channel: 16, messageId: nil))
        #expect(link.phoneMessages.count == delivered)
    }

    /// While we wait for the answer to our BYEBYE_REQUEST, a clear BYEBYE_RESPONSE is refused too.
    @Test func plaintextByeByeResponseWhileClosingIsRefused() throws {
        let link = try runningLink()
        link.perform(link.phone.sayByeBye(now: link.now))
        #expect(link.phone.phase == .closing)
        // Straight to the phone, before the head unit's genuine (encrypted) answer is delivered.
        _ = link.phone.receive(WireInspector.plainFrame(id: 16, body: []), now: link.now)
        #expect(link.phone.closeReason == .plaintextAfterTLS(channel: 0, messageId: 16))
    }

    /// Two TLS records in one frame are refused (one record per frame), even though each record
    /// on its own is genuine and in sequence.
    @Test func frameWithTwoRecordsClosesTheLink() throws {
        let link = try runningLink()
        var payload: [UInt8] = []
        for body: [UInt8] in [[0x08, 0x01], [0x08, 0x02]] {
            let actions = link.headUnit.sendUnchecked(channel: 16, messageId: 0x8001, body: body, encrypted: true)
            for case .send(let bytes) in actions {
                for frame in try WireInspector.frames(bytes) { payload += frame.payload }
            }
        }
        let joined = Frame(channel: 16, flags: FrameFlags(rawValue: 0x0B), payload: payload).encoded()
        let delivered = link.phoneMessages.count
        link.injectToPhone(joined)
        link.pump()
        guard case .tlsFailure(.decryptFailed(let detail)) = link.phoneClose else {
            Issue.record("expected a TLS failure, got \(String(describing: link.phoneClose))")
            return
        }
        #expect(detail.contains("not exactly one TLS record"))
        #expect(link.phoneMessages.count == delivered)
    }
}
