import Testing
@testable import DashportFuzzDrivers
import DashportTestSupport

/// Replays every input kept in `FuzzCrashes/` through the FuzzHTTP driver (tools/fuzz/Drivers/HTTPFuzz.swift).
@Suite struct FuzzReplayTests {
    @Test func everyKeptInputKeepsTheInvariants() throws {
        let inputs = try FuzzReplay.keptInputs()
        try #require(!inputs.isEmpty, "FuzzCrashes/ must hold at least one input to replay")
        for (name, bytes) in inputs {
            FuzzReplay.run(name) { HTTPFuzz.run(bytes) }
        }
    }

    @Test func theChecksPassOnGoodInput() {
        let input = [UInt8(0)] + Array("GET /a/../b?x=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhiGET / HTTP/1.0\r\n\r\n".utf8)
        #expect(FuzzReplay.violations { HTTPFuzz.run(input) }.isEmpty)
        #expect(HTTPFuzz.escape("a b/.") == "a%20b%2f%2e")
    }
}
