import DashportTestSupport
import DashportFrames
import DashportHeadUnit
import DashportLink
import DashportMessages
import DashportTLS
import Testing
import DashportRandom

/// Bad input closes only the link, with its own typed reason, and never crashes.
@Suite struct MalformedInputTests {
    private let versionRequest = WireInspector.plainFrame(id: 1, body: [0, 1, 0, 6])

    private func runningLink(_ headUnit: HeadUnitConfiguration = HeadUnitConfiguration()) throws -> LinkHarness {
        let link = try LinkHarness(headUnit: headUnit)
        link.connectAndSettle()
        try #require(link.phone.phase == .running)
        return link
    }

    private func closeReason(_ actions: [LinkAction]) -> LinkCloseReason? {
        guard case .close(let reason) = actions.last else { return nil }
        return reason
    }

    /// Anything but a plain channel-0 VERSION_REQUEST first is refused at once, sending nothing.
    @Test(arguments: [
        Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
        [0x16, 0x03, 0x01, 0x00, 0x2F, 0x01, 0x00],  // a TLS ClientHello record
        [0x00, 0x0B, 0x00, 0x06, 0, 1, 0, 1, 0, 6],  // encrypted flag on the version request
        [0x00, 0x03, 0x40, 0x00],  // a 16 KiB "version request"
        [0x05, 0x03, 0x00, 0x06, 0, 1, 0, 1, 0, 6],  // right bytes, wrong channel
        WireInspector.plainFrame(id: 3, body: [0x16, 0x03, 0x01]),  // TLS before the version exchange
    ])
    func garbageBeforeVersionExchange(bytes: [UInt8]) throws {
        let phone = PhoneLink(tls: try TestTLS.phoneSession())
        let actions = phone.receive(bytes, now: .zero)
        #expect(actions.count == 1)
        #expect(closeReason(actions)?.kind == "notAAP")
    }

    /// A length field of 65535 is over the receive cap (16 KiB + 1 KiB).
    @Test func lengthFieldOf65535() throws {
        let link = try runningLink()
        link.perform(link.headUnit.injectRaw([0x00, 0x0B, 0xFF, 0xFF]))
        link.pump()
        #expect(link.phoneClose == .badFrame(.payloadTooLarge(channel: 0, length: 65535, limit: 16384 + 1024)))
    }

    /// MIDDLE without FIRST is a framing error (during setup; once TLS is up a clear MIDDLE is
    /// refused even earlier, see `PlaintextAfterTLSTests`).
    @Test func middleWithoutFirst() throws {
        let phone = PhoneLink(tls: try TestTLS.phoneSession())
        _ = phone.receive(versionRequest, now: .zero)
        let actions = phone.receive([0, 0x00, 0x00, 0x03, 1, 2, 3], now: .zero)
        #expect(closeReason(actions) == .badFrame(.continuationWithoutFirst(channel: 0, type: .middle)))
    }

    /// A FIRST frame announcing more than the 1 MiB message cap is refused before buffering.
    @Test func messageOverTheCap() throws {
        let link = try runningLink()
        link.perform(link.headUnit.injectRaw([13, 0x01, 0x00, 0x02, 0x00, 0x20, 0x00, 0x00, 0x80, 0x01]))
        link.pump()
        #expect(link.phoneClose == .badFrame(.messageTooLarge(channel: 13, length: 2 << 20, limit: 1 << 20)))
    }

    /// A frame on a channel the head unit never listed, once running; during setup any channel but
    /// 0 is refused at the frame (`SetupFrameTests`).
    @Test func frameOnUnlistedChannel() throws {
        let link = try runningLink()
        link.perform(link.headUnit.sendUnchecked(channel: 77, messageId: 0x8001, body: [1], encrypted: true))
        link.pump()
        #expect(link.phoneClose == .unlistedChannel(77))

        let phone = PhoneLink(tls: try TestTLS.phoneSession())
        _ = phone.receive(versionRequest, now: .zero)
        let actions = phone.receive(WireInspector.plainFrame(channel: 5, id: 0x8001, body: []), now: .zero)
        #expect(closeReason(actions) == .notASetupFrame(channel: 5, type: .bulk, length: 2))
    }

    /// A service message on a listed channel we never opened (a sensor channel here).
    @Test func serviceMessageOnChannelNeverOpened() throws {
        var car = HeadUnitConfiguration.aasdkLikeCar
        car.services.append(CarService(channel: 1, kind: .sensor(types: [.nightMode])))
        let link = try runningLink(HeadUnitConfiguration(car: car))
        link.perform(link.headUnit.sendUnchecked(channel: 1, messageId: 0x8003, body: [0x52, 0x02, 0x08, 0x01], encrypted: true))
        link.pump()
        #expect(link.phoneClose == .channelNotOpen(channel: 1, messageId: 0x8003))
    }

    /// Garbage in ENCAPSULATED_SSL is a TLS failure.
    @Test func garbageInEncapsulatedSSL() throws {
        let phone = PhoneLink(tls: try TestTLS.phoneSession())
        _ = phone.receive(versionRequest, now: .zero)
        let garbage = WireInspector.plainFrame(id: 3, body: Array("this is not a TLS record at all".utf8))
        let reason = try #require(closeReason(phone.receive(garbage, now: .zero)))
        guard case .tlsFailure(.handshakeFailed) = reason else {
            Issue.record("expected a handshake failure, got \(reason)")
            return
        }
    }

    /// An encrypted frame before the handshake finished cannot be decrypted.
    @Test func encryptedFrameBeforeTLS() throws {
        let phone = PhoneLink(tls: try TestTLS.phoneSession())
        _ = phone.receive(versionRequest, now: .zero)
        let actions = phone.receive([0x00, 0x0B, 0x00, 0x03, 9, 9, 9], now: .zero)
        #expect(closeReason(actions) == .tlsFailure(.notEstablished))
    }

    /// Empty ENCAPSULATED_SSL messages (aasdk sends them) are tolerated, setup still completes.
    @Test func emptyEncapsulatedSSLIsTolerated() throws {
        let phone = PhoneLink(tls: try TestTLS.phoneSession())
        _ = phone.receive(versionRequest, now: .zero)
        #expect(phone.receive(WireInspector.plainFrame(id: 3, body: []), now: .zero).isEmpty)
        #expect(phone.phase == .tlsHandshake)

        let link = try LinkHarness()
        link.connect()
        link.perform(link.headUnit.injectRaw(WireInspector.plainFrame(id: 3, body: [])))
        link.pump()
        #expect(link.phone.phase == .running)
        #expect(link.phoneOpenedChannels.count == 5)
    }

    /// A message shorter than its 2-byte id.
    @Test func messageWithoutId() throws {
        let phone = PhoneLink(tls: try TestTLS.phoneSession())
        _ = phone.receive(versionRequest, now: .zero)
        let actions = phone.receive([0x00, 0x03, 0x00, 0x01, 0x03], now: .zero)
        #expect(closeReason(actions) == .missingMessageId(channel: 0, length: 1))
    }

    /// A discovery response that does not decode is fatal: nothing can run without it.
    @Test func undecodableDiscoveryResponse() throws {
        let link = try LinkHarness(headUnit: HeadUnitConfiguration(discoveryResponseBody: [0x0A, 0x10, 0x01]))
        link.connectAndSettle()
        #expect(link.phoneClose?.kind == "undecodable")
        if case .undecodable(let id, _) = link.phoneClose { #expect(id == 6) }
    }

    /// Setup messages out of order close the link.
    @Test func unexpectedMessageForThePhase() throws {
        let link = try runningLink()
        link.perform(link.headUnit.sendUnchecked(channel: 0, messageId: 4, body: [0x08, 0x00], encrypted: true))
        link.pump()
        #expect(link.phoneClose == .unexpectedMessage(channel: 0, messageId: 4, phase: .running))

        let phone = PhoneLink(tls: try TestTLS.phoneSession())
        _ = phone.receive(versionRequest, now: .zero)
        let auth = phone.receive(WireInspector.plainFrame(id: 4, body: [0x08, 0x00]), now: .zero)
        #expect(closeReason(auth) == .unexpectedMessage(channel: 0, messageId: 4, phase: .tlsHandshake))
    }

    /// Unknown control ids and unsolicited notifications are ignored once running; an audio focus
    /// notification is handed to the services (the media audio sink keeps the focus state).
    @Test func unknownControlMessagesAreIgnoredWhenRunning() throws {
        let link = try runningLink()
        let focus = AAP.AudioFocusNotification(focusState: .gain).serializedBytes()
        link.perform(link.headUnit.sendUnchecked(channel: 0, messageId: 19, body: focus, encrypted: true))
        link.perform(link.headUnit.sendUnchecked(channel: 0, messageId: 0x00F0, body: [1, 2], encrypted: true))
        link.perform(link.headUnit.sendUnchecked(channel: 0, messageId: 14, body: [0x08, 0x02], encrypted: true))
        link.pump()
        #expect(link.phoneClose == nil)
        #expect(link.phone.phase == .running)
        link.perform(try link.headUnit.send(channel: 13, messageId: 0x8002, body: [0x08, 0x01]))
        link.pump()
        #expect(link.phoneMessages.count == 2, "the focus notification, then the service message: the link still works")
        #expect(link.phoneMessages.first?.channel == 0 && link.phoneMessages.first?.id == 19)
    }

    /// A bad link closes alone: a second link next to it is untouched.
    @Test func oneBadLinkDoesNotAffectAnother() throws {
        let good = try runningLink()
        let bad = try runningLink()
        bad.perform(bad.headUnit.injectRaw([0x00, 0x0B, 0xFF, 0xFF]))
        bad.pump()
        good.perform(try good.phone.send(channel: 13, messageId: 0x8001, body: [1]))
        good.pump()
        #expect(bad.phoneClose != nil)
        #expect(good.phoneClose == nil)
        #expect(good.headUnitMessages.count == 1)
    }

    /// A head unit whose certificate is not pinned fails TLS with the policy's reason.
    @Test func unpinnedHeadUnitIsRejected() throws {
        let pinned = try TestTLS.pinnedPhoneSession(pins: [String(repeating: "ab", count: 32)])
        let link = try LinkHarness(phoneTLS: pinned)
        link.connectAndSettle()
        guard case .tlsFailure(.peerRejected) = link.phoneClose else {
            Issue.record("expected a peer rejection, got \(String(describing: link.phoneClose))")
            return
        }
        #expect(!link.phoneEvents.contains { if case .tlsEstablished = $0 { true } else { false } })

        let allowed = try TestTLS.pinnedPhoneSession(pins: [try TestTLS.carFingerprint()])
        let good = try LinkHarness(phoneTLS: allowed)
        good.connectAndSettle()
        #expect(good.phone.phase == .running)
    }

    /// Random bytes after a valid version exchange, at any phase, end in a typed close or in
    /// waiting for more bytes — never a crash, never a send after the close.
    @Test func randomGarbageNeverCrashes() throws {
        var rng = SplitMix64(seed: 2026)
        for round in 0..<200 {
            let phone = PhoneLink(tls: try TestTLS.phoneSession())
            var actions = phone.receive(versionRequest, now: .zero)
            let count = Int(rng.next() % 300)
            var garbage = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            if round % 2 == 0, garbage.count >= 2 {
                garbage[0] = 0  // mostly plausible channel-0 headers, to get past the first check
                garbage[1] &= 0x0F
            }
            actions += phone.receive(garbage, now: .seconds(1))
            actions += phone.tick(now: .seconds(11))
            let closes = actions.enumerated().filter { if case .close = $0.element { true } else { false } }
            #expect(closes.count == 1, "round \(round): the handshake deadline closes it at the latest")
            #expect(closes.first?.offset == actions.count - 1, "round \(round): close is the last action")
        }
    }
}
