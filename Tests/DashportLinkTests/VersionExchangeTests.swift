import DashportDigest
import DashportTestSupport
import DashportHeadUnit
import DashportLink
import Testing

/// The version exchange, byte for byte (aap-protocol.md §2.3, §8.7).
@Suite struct VersionExchangeTests {
    static let versionRequest16: [UInt8] = [0x00, 0x03, 0x00, 0x06, 0x00, 0x01, 0x00, 0x01, 0x00, 0x06]

    /// The head unit opens with the 10-byte VERSION_REQUEST frame for 1.6.
    @Test func headUnitSendsTheTenByteVersionRequest() throws {
        let link = try LinkHarness()
        link.connect()
        #expect(Hex.string(link.headUnitWire, separator: " ") == "00 03 00 06 00 01 00 01 00 06")
    }

    /// We answer it with `00 03 00 08 00 02 00 01 00 06 00 00`: version 1.6, status 0.
    @Test func phoneAnswersWithTheExactVersionResponse() throws {
        let phone = PhoneLink(tls: try TestTLS.phoneSession())
        let actions = phone.receive(Self.versionRequest16, now: .zero)
        #expect(
            actions == [
                .send([0x00, 0x03, 0x00, 0x08, 0x00, 0x02, 0x00, 0x01, 0x00, 0x06, 0x00, 0x00]),
                .event(.versionNegotiated(AAPVersion(major: 1, minor: 6))),
            ])
        #expect(phone.phase == .tlsHandshake)
    }

    /// The same answer when the request arrives one byte at a time.
    @Test func versionRequestSplitIntoSingleBytes() throws {
        let phone = PhoneLink(tls: try TestTLS.phoneSession())
        var actions: [LinkAction] = []
        for byte in Self.versionRequest16 {
            actions += phone.receive([byte], now: .zero)
        }
        #expect(actions.first == .send([0x00, 0x03, 0x00, 0x08, 0x00, 0x02, 0x00, 0x01, 0x00, 0x06, 0x00, 0x00]))
        #expect(phone.phase == .tlsHandshake)
    }

    /// Major 1 is answered 1.min(requested minor, 7) with status 0.
    @Test(arguments: [(UInt16(1), UInt16(1)), (6, 6), (7, 7), (9, 7), (0xFFFF, 7)])
    func minorIsCappedAtSeven(requested: UInt16, answered: UInt16) throws {
        let phone = PhoneLink(tls: try TestTLS.phoneSession())
        let request = WireInspector.plainFrame(id: 1, body: [0, 1, UInt8(requested >> 8), UInt8(requested & 0xFF)])
        let actions = phone.receive(request, now: .zero)
        let expected = WireInspector.plainFrame(id: 2, body: [0, 1, UInt8(answered >> 8), UInt8(answered & 0xFF), 0, 0])
        #expect(actions.first == .send(expected))
        #expect(phone.version == AAPVersion(major: 1, minor: answered))
    }

    /// Major 2 gets status 0xFFFF (with our own version 1.7) and the link closes right after.
    @Test func otherMajorIsRefusedAndClosed() throws {
        let phone = PhoneLink(tls: try TestTLS.phoneSession())
        let request = WireInspector.plainFrame(id: 1, body: [0, 2, 0, 0])
        let actions = phone.receive(request, now: .zero)
        #expect(
            actions == [
                .send([0x00, 0x03, 0x00, 0x08, 0x00, 0x02, 0x00, 0x01, 0x00, 0x07, 0xFF, 0xFF]),
                .close(.versionMismatch(requested: AAPVersion(major: 2, minor: 0))),
            ])
        #expect(phone.phase == .closed)
        #expect(phone.receive([0, 3, 0, 2, 0, 3], now: .zero).isEmpty, "a closed link ignores input")
    }

    /// A head unit asking for 2.0 sees the refusal and closes too.
    @Test func headUnitClosesOnRefusal() throws {
        let link = try LinkHarness(headUnit: HeadUnitConfiguration(version: AAPVersion(major: 2, minor: 0)))
        link.connectAndSettle()
        #expect(link.phoneClose == .versionMismatch(requested: AAPVersion(major: 2, minor: 0)))
        #expect(link.headUnitClose == .versionRejected(answered: AAPVersion(major: 1, minor: 7), status: 0xFFFF))
    }

    /// A VERSION_REQUEST frame too short to hold major and minor is not AAP.
    @Test func shortVersionRequestIsNotAAP() throws {
        let phone = PhoneLink(tls: try TestTLS.phoneSession())
        let actions = phone.receive([0x00, 0x03, 0x00, 0x05, 0x00, 0x01, 0x00, 0x01, 0x00], now: .zero)
        let reason = try #require(actions.last.flatMap { if case .close(let r) = $0 { r } else { nil } })
        #expect(reason.kind == "notAAP")
        #expect(actions.count == 1, "nothing is sent to a peer that is not a head unit")
    }
}
