import DashportLink
import DashportHeadUnit
import DashportLog
import DashportTestSupport
import Foundation
import Testing
@testable import DashportServer

/// A linked car's message budget (issue 23 item 1): a flood only slows itself, then is closed.
@Suite struct MessageRateBudgetTests {
    /// Within the burst nothing waits; past it the car waits for the deficit at the budget's
    /// rate; a second under the budget ends the episode; over it for `closeAfter`, closed.
    @Test func aFloodWaitsForItsDeficitThenIsClosed() {
        var budget = MessageRateBudget(.init(perSecond: 100, burst: 200, closeAfter: .seconds(3)))
        #expect(budget.charge(200, now: .zero) == .within)
        #expect(budget.charge(50, now: .zero) == .slowDown(.milliseconds(500)))
        #expect(budget.isOver)
        // 0.5 s later the deficit is paid; another flood slice is over again, the episode goes on.
        #expect(budget.charge(0, now: .milliseconds(500)) == .within)
        #expect(budget.charge(100, now: .milliseconds(500)) == .slowDown(.seconds(1)))
        #expect(budget.charge(100, now: .milliseconds(1500)) == .slowDown(.seconds(1)))
        #expect(budget.charge(100, now: .milliseconds(2500)) == .slowDown(.seconds(1)))
        #expect(budget.charge(100, now: .milliseconds(3500)) == .close)
    }

    @Test func aBurstThenQuietIsForgiven() {
        var budget = MessageRateBudget(.init(perSecond: 100, burst: 200, closeAfter: .seconds(3)))
        #expect(budget.charge(300, now: .zero) == .slowDown(.seconds(1)))
        #expect(budget.charge(10, now: .seconds(3)) == .within)  // a quiet second: the episode is over
        #expect(!budget.isOver)
        #expect(budget.charge(250, now: .seconds(5)) == .slowDown(.milliseconds(500)))
        #expect(budget.charge(0, now: .seconds(7)) == .within)
    }
}

/// The attack over real TCP: a linked car flooding encrypted pings is slowed to its budget, told
/// in the log once per episode, and closed when it keeps on; a good car beside it keeps its link and pings.
@Suite struct MessageFloodOverTCPTests {
    @Test func aPingFloodIsSlowedThenClosedAndTheOtherCarKeepsItsLink() async throws {
        try await TestServer.with(configure: {
            $0.maxMessagesPerSecond = 200
            $0.messageFloodCloseSeconds = 1
        }) { server in
            let good = try await TestCar.connect(to: server.server.address)
            try await good.waitUntil("good car linked") { $0.openedChannels.count == 5 }
            let flooder = try await TestCar.connect(to: server.server.address)
            try await flooder.waitUntil("flooder linked") { $0.openedChannels.count == 5 }
            // PING_REQUEST (id 11) {timestamp: 1}, encrypted, 3000 of them at once.
            for _ in 0..<3000 { await flooder.sendUnchecked(channel: 0, messageId: 11, body: [0x08, 0x01]) }
            try await server.waitForLog("messages a second: reading from it is paused")
            try await flooder.waitUntil("the flooder is closed", timeout: .seconds(120)) { $0.transportClosed }
            try await server.waitForLog("closing connection: the car sent more than 200 messages a second for 1.0 seconds")
            let pings = await good.pingsReceived
            try await good.waitUntil("good car still pinged") { $0.pingsReceived >= pings + 2 }
            #expect(await !good.transportClosed)
            // Said once per episode (a second under the budget ends one; under load the flood can
            // arrive in bursts with such seconds between), never once per message.
            let said = server.log.records.filter { $0.message.contains("reading from it is paused") }.count
            #expect((1...10).contains(said), "\(said) lines for 3000 pings")
            await good.abort()
        }
    }
}

/// Issue 23 item 3 over real TCP: a car whose make is 200 KB costs the log short lines only.
@Suite struct LongCarStringsOverTCPTests {
    @Test func aCarsHugeMakeIsCutInEveryLogLine() async throws {
        try await TestServer.with { server in
            var configuration = HeadUnitConfiguration()
            configuration.car.identity.make = String(repeating: "M", count: 200_000)
            configuration.car.identity.model = String(repeating: "m", count: 200_000)
            let car = try await TestCar.connect(to: server.server.address, configuration: configuration)
            try await car.waitUntil("linked") { $0.openedChannels.count >= 3 }
            let lines = server.log.records.map { $0.formatted(timestamp: Date()) }
            let longest = lines.map(\.utf8.count).max() ?? 0
            #expect(longest < LogRecord.maxMessageBytes + 16 * LogRecord.maxValueBytes, "longest line \(longest) bytes")
            #expect(lines.contains { $0.contains("MMMM") && $0.contains("bytes]") }, "the make is logged, cut")
            await car.abort()
        }
    }
}
