import DashportTestSupport
import Testing
import DashportLog
@testable import DashportServer

/// Each thing that happens to a car is one log line, naming the peer (and the channel where there
/// is one): the link reports events, the server logs them, never both.
@Suite("One log line per event", .serialized)
struct LogOnceTests {
    @Test func aCarsSetupAndByeByeAreEachLoggedOnce() async throws {
        try await TestServer.with { server in
            let car = try await TestCar.connect(to: server.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
            try await car.waitUntil("server hello") { $0.messages(on: 16).contains { $0.id == 0x8001 } }
            await car.sayByeBye()
            try await car.waitUntil("closed") { $0.transportClosed }
            try await server.waitForLog("link closed")

            let records = server.log.records
            func lines(_ fragment: String) -> [LogRecord] { records.filter { $0.message.contains(fragment) } }
            for fragment in ["version negotiated", "TLS established", "discovered", "car said bye-bye", "link closed"] {
                #expect(lines(fragment).count == 1, "\(fragment): \(lines(fragment).map { "\($0.label): \($0.message)" })")
            }
            let opened = lines("channel opened")
            #expect(opened.count == 5, "one line per channel: \(opened.map(\.message))")
            #expect(Set(opened.compactMap { $0.metadata.first { $0.0 == "channel" }?.1 }).count == 5)
            for record in records where record.label == "car" || record.label == "link" || record.label == "media" {
                #expect(record.metadata.contains { $0.0 == "peer" }, "names the peer: \(record.message)")
                let keys = record.metadata.map(\.0)
                #expect(Set(keys).count == keys.count, "no key twice: \(record.message) \(keys)")
            }
        }
    }
}
