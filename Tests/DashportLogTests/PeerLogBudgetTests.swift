import DashportClock
import DashportLog
import DashportTestSupport
import Foundation
import Testing

/// What one peer can make the log hold: cut lines, counted repeats, a byte budget per address.
@Suite struct PeerLogBudgetTests {
    private func record(_ message: String, peer: String? = "127.0.0.1:40112", _ extra: [(String, String)] = []) -> LogRecord {
        LogRecord(level: .warning, label: "link", message: message, metadata: (peer.map { [("peer", $0)] } ?? []) + extra)
    }

    /// A car's 200 KB make costs one short line: the message and every value are cut, saying how
    /// much was left out, on a character boundary.
    @Test func peerStringsAreCutInTheFormattedLine() {
        let make = String(repeating: "é", count: 100_000)  // 200,000 bytes
        let line = record("car says its make is \(make)", [("make", make)]).formatted(timestamp: Date(timeIntervalSince1970: 0))
        #expect(line.utf8.count < LogRecord.maxMessageBytes + LogRecord.maxValueBytes + 200)
        #expect(line.contains("…[+\(200_021 - 2047) bytes]"))  // 21 ASCII bytes, then 2-byte é: 2,047 fit
        #expect(line.contains("…[+\(200_000 - LogRecord.maxValueBytes) bytes]"))
        #expect(LogRecord.truncated("ab€", maxBytes: 3) == "ab…[+3 bytes]")
        #expect(LogRecord.truncated("short", maxBytes: 5) == "short")
    }

    /// The same line again and again is written once, then counted: the count comes with the
    /// peer's next different line.
    @Test func repeatsAreCountedNotRepeated() {
        let sink = CollectingSink()
        let budget = PeerLogBudget(wrapping: sink, clock: ManualClock())
        for _ in 0..<500 { budget.write(record("bad message on channel 9")) }
        budget.write(record("car left"))
        #expect(
            sink.records.map(\.message) == [
                "bad message on channel 9", "previous line repeated 499 more times: bad message on channel 9", "car left",
            ])
    }

    /// Repeats that go on for ever are summarised every ten seconds, not only at the end.
    @Test func endlessRepeatsAreSummarisedPeriodically() async {
        let sink = CollectingSink()
        let clock = ManualClock()
        let budget = PeerLogBudget(wrapping: sink, clock: clock)
        budget.write(record("ping flood"))
        for _ in 0..<25 {  // summaries after the 11th and the 22nd repeat
            await clock.advance(by: .seconds(1))
            budget.write(record("ping flood"))
        }
        #expect(sink.records.filter { $0.message.hasPrefix("previous line repeated") }.count == 2)
    }

    /// The attack: one address writing distinct lines as fast as it can (from any port) grows
    /// the log by at most its burst plus its rate; the suppression is announced once and counted
    /// when lines fit again. Another peer, and lines about no peer, are untouched.
    @Test func aFloodingPeerIsHeldToItsByteBudget() async {
        let sink = CollectingSink()
        let clock = ManualClock()
        let budget = PeerLogBudget(wrapping: sink, clock: clock, bytesPerSecond: 1000, burstBytes: 10_000)
        let big = String(repeating: "x", count: 900)
        for n in 0..<10_000 { budget.write(record("bad frame \(n) \(big)", peer: "10.0.0.7:\(40000 + n % 50)")) }
        budget.write(record("a good car linked", peer: "10.0.0.8:5000"))
        budget.write(record("server started", peer: nil))
        let flooder = sink.records.filter { $0.metadata.contains { $0 == ("peer", "10.0.0.7:40000") || $0.1.hasPrefix("10.0.0.7") } }
        let bytes = flooder.reduce(0) { $0 + $1.formatted(timestamp: Date()).utf8.count }
        #expect(bytes <= 10_000 + 2 * 300, "\(bytes) bytes from the flooder")
        #expect(flooder.filter { $0.message.contains("over its log budget") }.count == 1)
        #expect(sink.contains(nil, "a good car linked") && sink.contains(nil, "server started"))
        await clock.advance(by: .seconds(5))
        budget.write(record("car left", peer: "10.0.0.7:40001"))
        let last = sink.records.suffix(2).map(\.message)
        #expect(last.first?.hasPrefix("suppressed ") == true, "\(last)")
        #expect(last.last == "car left")
    }

    /// The table of peers is capped; the least recently heard is forgotten first.
    @Test func thePeerTableIsCapped() {
        let sink = CollectingSink()
        let budget = PeerLogBudget(wrapping: sink, clock: ManualClock(), maxPeers: 3)
        for n in 0..<100 { budget.write(record("hello", peer: "10.0.0.\(n):1")) }
        #expect(sink.records.count == 100)  // a forgotten peer starts afresh: every first line is written
    }
}
