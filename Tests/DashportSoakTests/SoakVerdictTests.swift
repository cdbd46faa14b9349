import Testing

@testable import DashportSoak

/// The soak's RSS bound compares the medians of the second and the last minute: a crowded instant
/// (a peak) is not growth, and memory the server keeps moves every sample of a minute.
@Suite struct SoakVerdictTests {
    /// Ten minutes of samples every 10 s at `floor` MiB, with `spikes` (elapsed seconds → MiB) on top.
    static func report(floor: (Int) -> Double, spikes: [Int: Double] = [:]) -> SoakReport {
        let idle = ProcessSample(rssKiB: 50 * 1024, rssAnonKiB: 8 * 1024, fds: 17, threads: 4)
        let samples = stride(from: 10, through: 600, by: 10).map { seconds in
            let mib = spikes[seconds] ?? floor(seconds)
            return SoakSample(
                elapsed: .seconds(seconds), process: ProcessSample(rssKiB: Int(mib * 1024), rssAnonKiB: 14 * 1024, fds: 40, threads: 8),
                cycles: seconds * 60, answers: seconds * 240, failures: 0)
        }
        return SoakReport(
            idleBefore: idle, samples: samples, idleAfter: idle, cycles: 36_000, answers: 144_000, failures: 0, firstFailures: [])
    }

    @Test func aCrowdedInstantInTheLastMinuteIsNotGrowth() {
        // The hour's run: the second minute's peak 59.1 MiB, 71.0 later, the floor flat at ~58.
        let report = Self.report(floor: { _ in 58 }, spikes: [80: 59.1, 570: 71.0, 590: 62.5])
        #expect(report.peakDrift > 0.05)
        #expect(abs(report.rssDrift) < 0.01)
        #expect(report.problems().isEmpty)
    }

    @Test func memoryKeptUnderLoadFailsTheBound() {
        // 1 MiB more a minute: every sample of the last minute is 9 MiB above the second's.
        let report = Self.report(floor: { 57 + Double($0 / 60) })
        #expect(report.rssDrift > 0.05)
        #expect(report.problems().contains { $0.hasPrefix("RSS grew") })
    }
}
