import DashportTestSupport
import Foundation
import Testing
import DashportHeadUnit
import DashportLink
import DashportLog
import DashportServer

/// Issue 11 item 6 end to end: a car whose discovery make and model carry a forged log line and
/// terminal escapes. Every line the server writes stays one line with the car's text escaped.
@Suite struct LogInjectionOverTCPTests {
    @Test func aCarsMakeAndModelCannotForgeLogLines() async throws {
        try await TestServer.with { server in
            var configuration = HeadUnitConfiguration()
            configuration.car.identity.make = "Acme\n2026-12-01T00:00:00.000Z notice  dashport: stopped"
            configuration.car.identity.model = "Z\u{1B}]0;pwned\u{07}\r"
            let car = try await TestCar.connect(to: server.server.address, configuration: configuration)
            try await car.waitUntil("channels open") { !$0.openedChannels.isEmpty }
            await car.abort()

            let discovered = try #require(server.log.records.first { $0.message == "car discovered" })
            let text = discovered.formatted(timestamp: Date())
            #expect(text.contains(#"Acme\n2026-12-01T00:00:00.000Z notice  dashport: stopped"#))
            #expect(text.contains(#"Z\u{1b}]0;pwned\u{7}\r"#))
            for record in server.log.records {
                let line = record.formatted(timestamp: Date())
                #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(line)")
            }
        }
    }
}
