import DashportTestSupport
import DashportHeadUnit
import DashportLink
import Testing

/// A car that reached something other than a phone says so in words, not in frame lengths.
@Suite struct NotAnAAPServerTests {
    func closeReason(after reply: [UInt8]) throws -> LinkCloseReason? {
        let link = HeadUnitLink(tls: try TestTLS.carSession())
        _ = link.start(now: .zero)
        let actions = link.receive(reply, now: .milliseconds(5))
        return actions.compactMap { if case .close(let reason) = $0 { reason } else { nil } }.first
    }

    @Test func anHTTPServerIsNotAnAAPServer() throws {
        let reason = try closeReason(after: Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8))
        #expect(reason == .notAAPServer("it answered \"HTTP/1.1 400 Bad Request\""))
        #expect(reason?.description == "this is not an AAP phone (it answered \"HTTP/1.1 400 Bad Request\")")
    }

    @Test func binaryGarbageIsShownAsHex() throws {
        let reason = try closeReason(after: [0x48, 0xFF, 0xFF, 0xFF, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05])
        #expect(reason == .notAAPServer("its first bytes are 48 ff ff ff 00 01 02 03"))
    }

    /// A server that speaks first with a banner whose first bytes read as a plausible frame header
    /// (VNC: "RF" is channel 0x52, "B " announces 16,928 bytes) is told apart at once, not after the
    /// handshake deadline spent waiting for that "frame".
    @Test func aBannerThatFramesIsNotAnAAPServerEither() throws {
        let reason = try closeReason(after: Array("RFB 003.008\n".utf8))
        #expect(reason == .notAAPServer("it answered \"RFB 003.008\""))
    }

    /// An encrypted first frame cannot be the plaintext VERSION_RESPONSE, even split after two bytes.
    @Test func theFirstTwoBytesAreEnoughEvenSplit() throws {
        let link = HeadUnitLink(tls: try TestTLS.carSession())
        _ = link.start(now: .zero)
        #expect(link.receive([0], now: .milliseconds(1)).isEmpty)
        #expect(link.receive([0x0B], now: .milliseconds(2)) == [.close(.notAAPServer("its first bytes are 00 0b"))])
    }

    /// A peer that says nothing at all (an HTTP server waiting for the rest of a request) is no
    /// phone once the first-answer deadline (3 s by default) passes, well before the 10 s handshake.
    @Test func silenceUntilTheFirstAnswerDeadlineIsNotAnAAPServer() throws {
        let link = HeadUnitLink(tls: try TestTLS.carSession())
        _ = link.start(now: .zero)
        #expect(link.nextDeadline == .seconds(3))
        #expect(link.tick(now: .milliseconds(2999)).isEmpty)
        #expect(
            link.tick(now: .seconds(3)) == [
                .close(.notAAPServer("nothing came back within 3.0 seconds of the VERSION_REQUEST; an AAP phone answers at once"))
            ])
    }

    /// Once the phone has begun to answer, only the handshake deadline applies; the first-answer
    /// deadline can be turned off or changed.
    @Test func theFirstAnswerDeadlineEndsWithTheFirstByteAndIsConfigurable() throws {
        let link = HeadUnitLink(tls: try TestTLS.carSession())
        _ = link.start(now: .zero)
        #expect(link.receive([0, 3], now: .seconds(1)).isEmpty)
        #expect(link.nextDeadline == .seconds(10))
        #expect(link.tick(now: .seconds(5)).isEmpty)

        var configuration = HeadUnitConfiguration()
        configuration.firstAnswerDeadline = nil
        let patient = HeadUnitLink(configuration: configuration, tls: try TestTLS.carSession())
        _ = patient.start(now: .zero)
        #expect(patient.nextDeadline == .seconds(10))

        configuration.firstAnswerDeadline = .milliseconds(500)
        let quick = HeadUnitLink(configuration: configuration, tls: try TestTLS.carSession())
        _ = quick.start(now: .zero)
        #expect(quick.tick(now: .milliseconds(500)).count == 1)
    }
}
