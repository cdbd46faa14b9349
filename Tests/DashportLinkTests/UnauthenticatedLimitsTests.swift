import DashportFrames
import DashportHeadUnit
import DashportLink
import DashportTestSupport
import Testing

/// Until AUTH_COMPLETE a peer may make the link hold only `unauthenticatedMaxPendingBytes` (64 KiB)
/// in unfinished messages, not the 4 MiB of ``FrameLimits/maxPendingBytes``: setup messages are
/// small, and a peer that never authenticates must not hold memory meant for cars (issue 11 item 1).
@Suite struct UnauthenticatedLimitsTests {
    /// VERSION_REQUEST (1.6) in a plaintext control frame.
    static let versionRequest: [UInt8] = [0, 0x03, 0, 6, 0x00, 0x01, 0x00, 0x01, 0x00, 0x06]

    /// A plaintext FIRST fragment on channel 0 declaring `total` bytes and carrying two of them.
    static func first(declaring total: Int) -> [UInt8] {
        [0, 0x01, 0, 2, UInt8(total >> 24 & 0xFF), UInt8(total >> 16 & 0xFF), UInt8(total >> 8 & 0xFF), UInt8(total & 0xFF), 0x00, 0x01]
    }

    @Test func aFirstFrameDeclaringMoreThanTheCapBeforeAuthenticationClosesTheLink() throws {
        let link = PhoneLink(tls: try TestTLS.phoneSession())
        _ = link.receive(Self.versionRequest, now: .zero)
        _ = link.receive(Self.first(declaring: 70_000), now: .zero)
        #expect(link.closeReason == .badFrame(.pendingBytesExceeded(channel: 0, pending: 70_000, limit: 64 * 1024)))
        #expect(link.phase == .closed)
    }

    @Test func aFirstFrameUnderTheCapIsHeldAndCounted() throws {
        let link = PhoneLink(tls: try TestTLS.phoneSession())
        _ = link.receive(Self.versionRequest, now: .zero)
        _ = link.receive(Self.first(declaring: 60_000), now: .zero)
        #expect(link.closeReason == nil)
        #expect(link.pendingMessageBytes == 60_000)
    }

    @Test func theCapIsConfigurable() throws {
        let link = PhoneLink(configuration: LinkConfiguration(unauthenticatedMaxPendingBytes: 1000), tls: try TestTLS.phoneSession())
        _ = link.receive(Self.versionRequest, now: .zero)
        _ = link.receive(Self.first(declaring: 1001), now: .zero)
        #expect(link.closeReason == .badFrame(.pendingBytesExceeded(channel: 0, pending: 1001, limit: 1000)))
    }

    /// A peer that keeps sending without authenticating (here: 1,000-byte MIDDLE frames of a
    /// message it never finishes, each within the frame and pending caps) is closed once it has
    /// sent more than a setup ever needs, not at the deadline.
    @Test func moreSetupInputThanAHeadUnitSendsClosesTheLink() throws {
        let link = PhoneLink(configuration: LinkConfiguration(unauthenticatedMaxInputBytes: 10_000), tls: try TestTLS.phoneSession())
        _ = link.receive(Self.versionRequest + Self.first(declaring: 60_000), now: .zero)
        let middle = [0, 0x00, 0x03, 0xE8] + [UInt8](repeating: 0x5A, count: 1000)
        for _ in 0..<9 { _ = link.receive(middle, now: .zero) }
        #expect(link.closeReason == nil, "9,056 bytes: still under the limit")
        #expect(link.receive(middle, now: .zero) == [.close(.setupInputExceeded(limit: 10_000))])
    }

    /// A whole real setup fits in 16 KiB of input, and once the car is authenticated neither setup
    /// limit applies: a 100,000-byte message (over both) reassembles and arrives as before.
    @Test func afterAuthenticationNeitherSetupLimitApplies() throws {
        let link = try LinkHarness(phone: LinkConfiguration(unauthenticatedMaxInputBytes: 16 * 1024))
        link.connectAndSettle()
        try #require(link.phone.phase == .running)
        let body = [UInt8](repeating: 0x5A, count: 100_000)
        link.perform(link.headUnit.sendUnchecked(channel: 16, messageId: 0x8001, body: body, encrypted: true))
        link.pump()
        #expect(link.phoneClose == nil)
        #expect(link.phoneMessages.last.map { $0.id == 0x8001 && $0.body == body } == true)
    }
}
