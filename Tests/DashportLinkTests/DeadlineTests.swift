import DashportTestSupport
import DashportHeadUnit
import DashportLink
import DashportMessages
import Testing

/// Deadlines on the injected clock: handshake, idle, channel-open answers (§8.3, §8.9).
@Suite struct DeadlineTests {
    /// A silent peer is dropped when the handshake deadline (10 s) passes, not a moment before.
    @Test func silentPeerHitsTheHandshakeDeadline() throws {
        let phone = PhoneLink(tls: try TestTLS.phoneSession())
        #expect(phone.nextDeadline == .zero, "tick once to start the clock")
        #expect(phone.tick(now: .seconds(50)).isEmpty)
        #expect(phone.nextDeadline == .seconds(60))
        #expect(phone.tick(now: .milliseconds(59_999)).isEmpty)
        #expect(phone.tick(now: .seconds(60)) == [.close(.handshakeTimeout(phase: .versionExchange))])
        #expect(phone.nextDeadline == nil)
        #expect(phone.tick(now: .seconds(61)).isEmpty)
    }

    /// The deadline covers the whole setup: a peer that stops after the version exchange is
    /// dropped in the TLS phase, counted from the first byte.
    @Test func stalledHandshakeHitsTheDeadline() throws {
        let phone = PhoneLink(configuration: LinkConfiguration(handshakeDeadline: .seconds(3)), tls: try TestTLS.phoneSession())
        _ = phone.receive(WireInspector.plainFrame(id: 1, body: [0, 1, 0, 6]), now: .seconds(1))
        #expect(phone.nextDeadline == .seconds(4))
        #expect(phone.tick(now: .seconds(4)) == [.close(.handshakeTimeout(phase: .tlsHandshake))])
    }

    /// A head unit that never answers the discovery request is dropped in the discovery phase;
    /// one that finishes setup is never dropped by the handshake deadline afterwards.
    @Test func headUnitSilentAfterAuthHitsTheDeadline() throws {
        let stalled = try LinkHarness(headUnit: HeadUnitConfiguration(answersDiscovery: false))
        stalled.connectAndSettle()
        #expect(stalled.phone.phase == .discovery)
        stalled.advance(by: .seconds(10))
        #expect(stalled.phoneClose == .handshakeTimeout(phase: .discovery))

        let normal = try LinkHarness()
        normal.connectAndSettle()
        normal.advance(by: .seconds(30))
        #expect(normal.phoneClose == nil)
    }

    /// A listed channel whose open request is never answered (aasdk, §8.9) is reported failed
    /// after the channel-open timeout; the rest of the link keeps running.
    @Test func unansweredChannelOpenTimesOut() throws {
        let link = try LinkHarness(headUnit: HeadUnitConfiguration(unansweredChannelOpens: [15]))
        link.connectAndSettle()
        #expect(link.phoneOpenedChannels.sorted() == [4, 8, 13, 16])
        #expect(link.headUnitEvents.contains(.channelOpenUnanswered(channel: 15, listed: true)))

        link.advance(by: .milliseconds(4999))
        #expect(!link.phoneEvents.contains { if case .channelOpenFailed = $0 { true } else { false } })
        link.advance(by: .milliseconds(1))
        let browser = CarService(channel: 15, kind: .mediaBrowser)
        #expect(
            link.phoneEvents.filter { if case .channelOpenFailed = $0 { true } else { false } }
                == [.channelOpenFailed(browser, .timedOut)])
        #expect(throws: LinkSendError.channelNotOpen(15)) {
            try link.phone.send(channel: 15, messageId: 0x8001, body: [])
        }

        link.advance(by: .seconds(55))
        #expect(link.phoneClose == nil)
        link.perform(try link.phone.send(channel: 13, messageId: 0x8001, body: [7]))
        link.pump()
        #expect(link.headUnitMessages.map(\.channel) == [13])
    }

    /// A success that arrives after the timeout still opens the channel.
    @Test func lateChannelOpenSuccessStillOpens() throws {
        let link = try LinkHarness(headUnit: HeadUnitConfiguration(unansweredChannelOpens: [15]))
        link.connectAndSettle()
        link.advance(by: .seconds(6))
        let success = AAP.ChannelOpenResponse(status: AAP.MessageStatus(rawValue: 0)).serializedBytes()
        link.perform(link.headUnit.sendUnchecked(channel: 15, messageId: 8, body: success, encrypted: true))
        link.pump()
        #expect(link.phoneEvents.last == .channelOpened(CarService(channel: 15, kind: .mediaBrowser)))
        #expect(link.phone.openServices.map(\.channel) == [4, 8, 13, 15, 16])
    }

    /// A refusal is reported with the head unit's status.
    @Test func refusedChannelOpenReportsTheStatus() throws {
        let link = try LinkHarness(headUnit: HeadUnitConfiguration(refusedChannelOpens: [16: -4]))
        link.connectAndSettle()
        let extensionService = try #require(link.phone.car?.service(onChannel: 16))
        #expect(link.phoneEvents.contains(.channelOpenFailed(extensionService, .status(-4))))
        #expect(link.phoneOpenedChannels.sorted() == [4, 8, 13, 15])
        link.advance(by: .seconds(10))
        #expect(link.phoneEvents.filter { if case .channelOpenFailed = $0 { true } else { false } }.count == 1)
    }

    /// The idle deadline is off by default; when set, a silent head unit is dropped after it.
    @Test func idleDeadlineOnlyWhenConfigured() throws {
        let quiet = HeadUnitConfiguration(answersPings: false)
        let unlimited = try LinkHarness(headUnit: quiet)
        unlimited.connectAndSettle()
        unlimited.advance(by: .seconds(120))
        #expect(unlimited.phoneClose == nil)

        let limited = try LinkHarness(phone: LinkConfiguration(idleDeadline: .seconds(15)), headUnit: quiet)
        limited.connectAndSettle()
        limited.advance(by: .seconds(14))
        #expect(limited.phoneClose == nil)
        limited.advance(by: .seconds(1))
        #expect(limited.phoneClose == .idleTimeout(.seconds(15)))

        let chatty = try LinkHarness(phone: LinkConfiguration(idleDeadline: .seconds(15)))
        chatty.connectAndSettle()
        chatty.advance(by: .seconds(60))
        #expect(chatty.phoneClose == nil, "answered pings keep the link alive")
    }
}
