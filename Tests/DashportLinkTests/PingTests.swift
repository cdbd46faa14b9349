import DashportTestSupport
import DashportFrames
import DashportHeadUnit
import DashportLink
import DashportMessages
import Testing

/// Keep-alive both ways (aap-protocol.md §2.10, §8.3, §8.4).
@Suite struct PingTests {
    private func pingsSeenByHeadUnit(_ link: LinkHarness) -> [(timestamp: Int64, encrypted: Bool)] {
        link.headUnitEvents.compactMap {
            if case .pingReceived(let timestamp, let encrypted) = $0 { (timestamp, encrypted) } else { nil }
        }
    }

    /// Once running we ping about every second, encrypted, with a microsecond timestamp, and
    /// an aasdk head unit's plaintext answers are matched to them.
    @Test func phonePingsEverySecondAndMatchesAnswers() throws {
        let link = try LinkHarness()
        link.connectAndSettle()
        link.advance(by: .seconds(10))

        let pings = pingsSeenByHeadUnit(link)
        #expect(pings.count == 10)
        #expect(pings.allSatisfy { $0.encrypted })
        let steps = zip(pings.dropFirst(), pings).map { $0.timestamp - $1.timestamp }
        #expect(steps.allSatisfy { $0 == 1_000_000 }, "timestamps are microseconds, one second apart")
        let answers = link.phoneEvents.filter { if case .pingAnswered = $0 { true } else { false } }
        #expect(answers.count == 10)
        #expect(answers.allSatisfy { $0 == .pingAnswered(rtt: .zero) }, "no time passes in memory")
    }

    /// A head unit that never answers (openauto) costs nothing: 60 fake seconds later the link
    /// is still running and still pinging.
    @Test func unansweredPingsAreNeverFatal() throws {
        let link = try LinkHarness(headUnit: HeadUnitConfiguration(answersPings: false))
        link.connectAndSettle()
        link.advance(by: .seconds(60))

        #expect(link.phoneClose == nil)
        #expect(link.phone.phase == .running)
        #expect(pingsSeenByHeadUnit(link).count == 60)
        #expect(!link.phoneEvents.contains { if case .pingAnswered = $0 { true } else { false } })
    }

    /// Head-unit pings are answered in kind: plain with plain (aasdk), encrypted with encrypted.
    @Test(arguments: [HeadUnitConfiguration.ControlEncryption.plain, .encrypted])
    func headUnitPingsAreAnsweredInKind(encryption: HeadUnitConfiguration.ControlEncryption) throws {
        let configuration = HeadUnitConfiguration(controlEncryption: encryption, pingInterval: .seconds(2))
        let link = try LinkHarness(headUnit: configuration)
        link.connectAndSettle()
        let setupBytes = link.phoneWire.count
        link.advance(by: .seconds(4))

        let answered = link.headUnitEvents.compactMap {
            if case .pingAnswered(let rtt, let encrypted) = $0 { (rtt, encrypted) } else { nil }
        }
        #expect(answered.count == 2)
        #expect(answered.allSatisfy { $0.0 == .zero && $0.1 == (encryption == .encrypted) })
        let plainResponses = try WireInspector.frames(Array(link.phoneWire[setupBytes...]))
            .filter { $0.plainMessageId == 12 }
        #expect(plainResponses.count == (encryption == .plain ? 2 : 0))
        #expect(plainResponses.allSatisfy { $0.header.flags.rawValue == 0x03 && $0.header.channel == 0 })
    }

    /// A plaintext ping during the TLS handshake is answered at once, in plaintext.
    @Test func plainPingBeforeTLSIsAnswered() throws {
        let phone = PhoneLink(tls: try TestTLS.phoneSession())
        _ = phone.receive(WireInspector.plainFrame(id: 1, body: [0, 1, 0, 6]), now: .zero)
        let ping = AAP.PingRequest(timestamp: 123_456_789).serializedBytes()
        let actions = phone.receive(WireInspector.plainFrame(id: 11, body: ping), now: .seconds(1))
        let pong = AAP.PingResponse(timestamp: 123_456_789).serializedBytes()
        #expect(actions == [.send(WireInspector.plainFrame(id: 12, body: pong))])
        #expect(phone.phase == .tlsHandshake)
    }

    /// A ping interval the head unit advertises (ConnectionConfiguration → PingConfiguration)
    /// replaces our one-second default.
    @Test func advertisedPingIntervalIsUsed() throws {
        var car = HeadUnitConfiguration.aasdkLikeCar
        car.ping = CarPingConfiguration(timeout: .seconds(3), interval: .milliseconds(2500))
        let link = try LinkHarness(headUnit: HeadUnitConfiguration(car: car))
        link.connectAndSettle()
        #expect(link.phone.car?.ping?.interval == .milliseconds(2500))
        link.advance(by: .seconds(10))
        #expect(pingsSeenByHeadUnit(link).count == 4)
    }

    /// An advertised interval of 1 ms is clamped to the configured range instead of flooding.
    @Test func absurdAdvertisedIntervalIsClamped() throws {
        var car = HeadUnitConfiguration.aasdkLikeCar
        car.ping = CarPingConfiguration(interval: .milliseconds(1))
        let link = try LinkHarness(headUnit: HeadUnitConfiguration(car: car))
        link.connectAndSettle()
        link.advance(by: .seconds(1))
        #expect(pingsSeenByHeadUnit(link).count == 5, "200 ms is the floor")
    }

    /// The ping keeper remembers a bounded number of unanswered pings and forgets strangers.
    @Test func pingKeeperMatchesOnlyItsOwnTimestamps() {
        var keeper = PingKeeper(interval: .seconds(1))
        #expect(keeper.due(now: .seconds(5)) == nil, "stopped until started")
        keeper.start(now: .seconds(5))
        #expect(keeper.due(now: .milliseconds(5999)) == nil)
        let first = keeper.due(now: .seconds(6))
        #expect(first == 6_000_000)
        #expect(keeper.answered(timestamp: 42, now: .seconds(7)) == nil)
        #expect(keeper.answered(timestamp: 6_000_000, now: .milliseconds(6250)) == .milliseconds(250))
        #expect(keeper.answered(timestamp: 6_000_000, now: .seconds(7)) == nil, "answered once only")
        for second in 7...40 { _ = keeper.due(now: .seconds(second)) }
        #expect(keeper.unansweredCount == PingKeeper.maxOutstanding)
        #expect(keeper.due(now: .seconds(100)) != nil)
        #expect(keeper.nextPingAt == .seconds(101), "a late driver does not cause a burst")
    }
}
