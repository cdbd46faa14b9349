import DashportTestSupport
import DashportFrames
import DashportHeadUnit
import DashportLink
import Testing
import DashportRandom

/// Service traffic on open channels, both ways, small and fragmented (aap-protocol.md §1.4, §8.1).
@Suite struct ServiceMessageTests {
    /// Deterministic filler so a corrupted byte anywhere shows.
    private func pattern(_ count: Int, seed: UInt64 = 7) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    private func runningLink(splitSeed: UInt64? = nil) throws -> LinkHarness {
        let link = try LinkHarness(splitSeed: splitSeed)
        link.connectAndSettle()
        try #require(link.phone.phase == .running)
        return link
    }

    /// A small message from the phone arrives whole, in one encrypted BULK frame (0x0B).
    @Test func smallMessagePhoneToHeadUnit() throws {
        let link = try runningLink()
        let before = link.phoneWire.count
        link.perform(try link.phone.send(channel: 13, messageId: 0x8001, body: [0x08, 0x02, 0x10, 0x50]))
        link.pump()

        #expect(link.headUnitMessages.count == 1)
        let message = try #require(link.headUnitMessages.first)
        #expect(message.channel == 13 && message.id == 0x8001 && message.body == [0x08, 0x02, 0x10, 0x50])
        let frames = try WireInspector.frames(Array(link.phoneWire[before...]))
        #expect(frames.map(\.header.flags.rawValue) == [0x0B])
        #expect(frames.map(\.header.channel) == [13])
        #expect(frames.first?.payload.count == 2 + 4 + 29, "one AES-GCM record of id + body")
    }

    /// A head-unit message on an open channel reaches the services as an event.
    @Test func smallMessageHeadUnitToPhone() throws {
        let link = try runningLink()
        link.perform(try link.headUnit.send(channel: 8, messageId: 0x8001, body: [1, 2, 3]))
        link.pump()
        #expect(link.phoneMessages.count == 1)
        #expect(link.phoneMessages.first?.channel == 8)
        #expect(link.phoneMessages.first?.id == 0x8001)
        #expect(link.phoneMessages.first?.body == [1, 2, 3])
    }

    /// 40,000 bytes (album art size) go out as FIRST 0x09 → MIDDLE 0x08 → LAST 0x0A, each frame
    /// one record of 16120/16124 plaintext bytes, and arrive intact — both ways.
    @Test func fortyKilobyteMessageIsFragmentedBothWays() throws {
        let link = try runningLink()
        let body = pattern(40_000)
        let before = link.phoneWire.count
        link.perform(try link.phone.send(channel: 13, messageId: 0x8003, body: body))
        link.perform(try link.headUnit.send(channel: 16, messageId: 0x8010, body: body))
        link.pump()

        #expect(link.headUnitMessages.map(\.body) == [body])
        #expect(link.phoneMessages.map(\.body) == [body])
        #expect(link.phoneMessages.first?.channel == 16)
        let frames = try WireInspector.frames(Array(link.phoneWire[before...]))
        #expect(frames.map(\.header.flags.rawValue) == [0x09, 0x08, 0x0A])
        #expect(frames.map(\.payload.count) == [16120 + 29, 16124 + 29, 40_002 - 16120 - 16124 + 29])
        #expect(frames.first?.header.totalLength == 40_002, "the total counts plaintext, id included")
    }

    /// Every frame we write in a whole session — setup, pings, a 1 MiB message — is at most
    /// 16384 bytes on the wire, and the 1 MiB message arrives intact.
    @Test func everyFrameWeSendFitsSixteenKiB() throws {
        let link = try runningLink()
        let body = pattern(FrameLimits.default.maxMessageSize - 2, seed: 99)
        link.perform(try link.phone.send(channel: 16, messageId: 0x8001, body: body))
        link.advance(by: .seconds(3))
        link.perform(link.phone.sayByeBye(now: link.now))
        link.pump()

        #expect(link.headUnitMessages.count == 1)
        #expect(link.headUnitMessages.first?.body == body)
        let frames = try WireInspector.frames(link.phoneWire)
        #expect(frames.count > 65)
        #expect(frames.allSatisfy { $0.wireSize <= 16384 })
        #expect(frames.map(\.wireSize).max() == 8 + 16120 + 29)
    }

    /// Large messages both ways survive deliveries cut into random pieces.
    @Test(arguments: [11, 12, 13] as [UInt64])
    func largeMessagesSurviveRandomSplits(seed: UInt64) throws {
        let link = try runningLink(splitSeed: seed)
        let small = pattern(100, seed: seed)
        let large = pattern(70_000, seed: seed + 1)
        link.perform(try link.phone.send(channel: 15, messageId: 0x8001, body: large))
        link.perform(try link.phone.send(channel: 13, messageId: 0x8001, body: small))
        link.perform(try link.headUnit.send(channel: 8, messageId: 0x8001, body: large))
        link.pump()
        #expect(link.headUnitMessages.map(\.body) == [large, small])
        #expect(link.phoneMessages.map(\.body) == [large])
    }

    /// An empty body is a valid message (id only).
    @Test func emptyBodyTravels() throws {
        let link = try runningLink()
        link.perform(try link.phone.send(channel: 15, messageId: 0x8005, body: []))
        link.pump()
        #expect(link.headUnitMessages.first?.id == 0x8005)
        #expect(link.headUnitMessages.first?.body == [])
    }

    /// `send` refuses, sending nothing, when the channel is not open or the link not running.
    @Test func sendRefusesWhatCannotGo() throws {
        let idle = PhoneLink(tls: try TestTLS.phoneSession())
        #expect(throws: LinkSendError.notRunning(.versionExchange)) {
            try idle.send(channel: 13, messageId: 0x8001, body: [])
        }

        let link = try runningLink()
        #expect(throws: LinkSendError.channelNotOpen(99)) {
            try link.phone.send(channel: 99, messageId: 0x8001, body: [])
        }
        #expect(throws: LinkSendError.channelNotOpen(0)) {
            try link.phone.send(channel: 0, messageId: 0x8001, body: [])
        }
        let limit = FrameLimits.default.maxMessageSize
        #expect(throws: LinkSendError.messageTooLarge(size: limit + 1, limit: limit)) {
            try link.phone.send(channel: 13, messageId: 0x8001, body: [UInt8](repeating: 0, count: limit - 1))
        }
        link.pump()
        #expect(link.headUnitMessages.isEmpty)
        #expect(link.phoneClose == nil)
    }
}
