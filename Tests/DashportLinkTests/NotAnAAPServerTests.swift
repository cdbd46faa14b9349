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
        #expect(reason?.description == "this is not an AAP server (it answered \"HTTP/1.1 400 Bad Request\")")
    }

    @Test func binaryGarbageIsShownAsHex() throws {
        let reason = try closeReason(after: [0x48, 0xFF, 0xFF, 0xFF, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05])
        #expect(reason == .notAAPServer("its first bytes are 48 ff ff ff 00 01 02 03"))
    }
}
