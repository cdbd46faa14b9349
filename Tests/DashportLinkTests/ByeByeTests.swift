import DashportTestSupport
import DashportHeadUnit
import DashportLink
import DashportMessages
import Testing

/// Clean shutdown in both directions (aap-protocol.md §2.9).
@Suite struct ByeByeTests {
    private func runningLink() throws -> LinkHarness {
        let link = try LinkHarness()
        link.connectAndSettle()
        try #require(link.phone.phase == .running)
        return link
    }

    /// Our BYEBYE_REQUEST (encrypted, 0x0B) is answered; we close once the answer arrives.
    @Test func phoneSaysByeBye() throws {
        let link = try runningLink()
        let before = link.phoneWire.count
        link.perform(link.phone.sayByeBye(reason: .userSelection, now: link.now))
        #expect(link.phone.phase == .closing)
        #expect(link.phoneClose == nil)
        let frames = try WireInspector.frames(Array(link.phoneWire[before...]))
        #expect(frames.map(\.header.flags.rawValue) == [0x0B])
        #expect(frames.map(\.header.channel) == [0])

        link.pump()
        #expect(link.headUnitEvents.last == .byeByeReceived(reason: 1))
        #expect(link.headUnitClose == .peerByeBye(reason: 1))
        #expect(link.phoneClose == .byeBye(answered: true))
        #expect(link.phone.nextDeadline == nil)
    }

    /// Without an answer we close anyway once the grace period (1 s) is over.
    @Test func unansweredByeByeClosesAfterTheGrace() throws {
        let link = try runningLink()
        _ = link.phone.sayByeBye(now: link.now)  // the bytes are lost on the way
        #expect(link.phone.nextDeadline == link.now + .seconds(1))
        link.advance(by: .milliseconds(999))
        #expect(link.phoneClose == nil)
        link.advance(by: .milliseconds(1))
        #expect(link.phoneClose == .byeBye(answered: false))
    }

    /// The head unit's BYEBYE_REQUEST gets BYEBYE_RESPONSE, an event, then the close.
    @Test func headUnitSaysByeBye() throws {
        let link = try runningLink()
        link.perform(link.headUnit.sayByeBye(reason: .powerDown, now: link.now))
        link.pump()
        #expect(link.phoneEvents.last == .byeByeReceived(reason: 7))
        #expect(link.phoneClose == .peerByeBye(reason: 7))
        #expect(link.headUnitClose == .byeBye(answered: true))
    }

    /// Service traffic arriving while our bye-bye is out is dropped, not an error.
    @Test func trafficWhileClosingIsDropped() throws {
        let link = try runningLink()
        let bye = link.phone.sayByeBye(now: link.now)
        link.perform(try link.headUnit.send(channel: 13, messageId: 0x8002, body: [1]))
        link.perform(link.headUnit.sendUnchecked(channel: 99, messageId: 0x8002, body: [1], encrypted: true))
        link.pump()
        #expect(link.phoneClose == nil, "still waiting for the answer")
        #expect(link.phoneMessages.isEmpty)
        #expect(throws: LinkSendError.notRunning(.closing)) {
            try link.phone.send(channel: 13, messageId: 0x8001, body: [])
        }
        link.perform(bye)
        link.pump()
        #expect(link.phoneClose == .byeBye(answered: true))
    }

    /// Before TLS there is nobody to tell: bye-bye closes at once, sending nothing.
    @Test func byeByeBeforeTLSClosesAtOnce() throws {
        let phone = PhoneLink(tls: try TestTLS.phoneSession())
        #expect(phone.sayByeBye(now: .zero) == [.close(.byeBye(answered: false))])
        #expect(phone.sayByeBye(now: .zero).isEmpty)
        #expect(phone.receive([0, 3, 0, 6, 0, 1, 0, 1, 0, 6], now: .zero).isEmpty)
    }
}
