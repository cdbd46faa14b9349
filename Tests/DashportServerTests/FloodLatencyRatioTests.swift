import DashportHeadUnit
import DashportTestSupport
import DashportThread
import DashportTransport
import Foundation
import Synchronization
import Testing
@testable import DashportServer

/// Issue 23 item 1, the bound itself: a good car's latency beside a linked car flooding encrypted
/// pings, as a ratio against the same car's latency beside a CPU burner taking a core in the same
/// process (the control), measured in the same test. Rounds alternate (control, flood, control,
/// flood) so a change in the machine's load weighs on both sides alike.
// A CPU burner taking a core and a flood for minutes: beside the rest of the suite on a 2-core
// machine it starves every other test's waits (seen in CI: dozens of 60-s timeouts together), so it
// runs on request, alone: `DASHPORT_HEAVY_TESTS=1 swift test --filter FloodLatencyRatioTests`.
@Suite(
    "Latency beside a flooder, against a control", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["DASHPORT_HEAVY_TESTS"] == "1", "a load test: DASHPORT_HEAVY_TESTS=1"))
struct FloodLatencyRatioTests {
    /// Pings the good car's own keeper sends every 20 ms; the server answers each in turn with
    /// the flooder's traffic, so a reactor busy with the flooder shows in their round trips.
    static let samplesPerRound = 25

    @Test func aGoodCarsPingRoundTripBesideAPingFloodStaysWithinAFewTimesTheControl() async throws {
        // The budget's close is pushed past the test: the flood is slowed (reading paused), never ended.
        try await TestServer.with(configure: { $0.messageFloodCloseSeconds = 600 }) { server in
            var configuration = HeadUnitConfiguration()
            configuration.pingInterval = .milliseconds(20)
            let good = try await TestCar.connect(to: server.server.address, configuration: configuration)
            defer { Task { await good.abort() } }
            try await good.waitUntil("good car linked") { $0.openedChannels.count == 5 }
            let flooder = try await TestCar.connect(to: server.server.address)
            defer { Task { await flooder.abort() } }
            try await flooder.waitUntil("flooder linked") { $0.openedChannels.count == 5 }

            var control: [Double] = []
            var beside: [Double] = []
            for _ in 0..<2 {
                control += try await Self.roundTrips(of: good) {
                    let stop = Atomic<Bool>(false)
                    OSThread.start(name: "cpu-burner") {
                        var x: UInt64 = 1
                        while !stop.load(ordering: .relaxed) { x = x &* 6_364_136_223_846_793_005 &+ 1 }
                        _ = x
                    }
                    return { stop.store(true, ordering: .relaxed) }
                }
                beside += try await Self.roundTrips(of: good) {
                    let stop = Atomic<Bool>(false)
                    let flood = Task {
                        // PING_REQUEST {timestamp: 1}, encrypted, as fast as the server takes them.
                        while !stop.load(ordering: .relaxed) {
                            if flooder.connection.outboundBufferedBytes < 512 * 1024 {
                                for _ in 0..<200 { await flooder.sendUnchecked(channel: 0, messageId: 11, body: [0x08, 0x01]) }
                            }
                            try? await Task.sleep(for: .milliseconds(1))
                        }
                    }
                    return {
                        stop.store(true, ordering: .relaxed)
                        flood.cancel()
                    }
                }
            }
            #expect(await !good.transportClosed)
            try await server.waitForLog("reading from it is paused")  // the flood really was over the budget
            // Medians, and the control never below a millisecond (a loopback round trip on an idle
            // machine is a tenth of that, so a ratio of two such tiny numbers would be noise).
            let reference = max(Self.median(control), 1.0)
            // Measured ×3.0 here (3.0 ms beside the flood, under 1 ms beside the burner, load ~5);
            // 8 leaves room for a load of 30, while the unbudgeted flood of the issue was 14-21×.
            let ratio = Self.median(beside) / reference
            #expect(
                ratio <= 8,
                "good car's ping round trip beside the flooder \(Self.median(beside)) ms, beside a CPU burner \(Self.median(control)) ms (×\(ratio))"
            )
        }
    }

    /// Starts the disturbance, takes the good car's next `samplesPerRound` ping round trips (ms),
    /// stops it.
    static func roundTrips(of car: TestCar, beside start: () -> (@Sendable () -> Void)) async throws -> [Double] {
        let before = await car.pingRoundTrips.count
        let stop = start()
        defer { stop() }
        try await car.waitUntil("\(samplesPerRound) ping round trips", timeout: .seconds(120)) {
            $0.pingRoundTrips.count >= before + samplesPerRound
        }
        return await car.pingRoundTrips.dropFirst(before).map {
            Double($0.components.attoseconds) / 1e15 + Double($0.components.seconds) * 1000
        }
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }
}
