import DashportEmulator
import DashportHeadUnit
import DashportTLS
public import DashportTransport
import Foundation

/// What a soak does.
public struct SoakOptions: Sendable {
    /// Cars cycling at once.
    public var cars = 10
    /// How long the cars keep cycling.
    public var duration: Duration = .seconds(60)
    /// How often the server process is sampled.
    public var sampleInterval: Duration = .seconds(10)
    /// Bound on each connect, answer and bye-bye; generous, so that a loaded machine is not a failure.
    public var timeout: Duration = .seconds(60)
    /// Each car waits this long between its sessions (0 = back to back).
    public var pause: Duration = .zero
    /// The box covers are asked for.
    public var artworkSize: UInt32 = 96
    /// Each car runs at least this many sessions, however long they take (a smoke run counts
    /// sessions, not seconds, so a loaded machine only makes it slower).
    public var minimumCyclesPerCar = 0

    public init() {}
}

/// What a soak saw.
public struct SoakReport: Sendable {
    /// The server at rest before the first car.
    public var idleBefore: ProcessSample
    /// Every `sampleInterval` while the cars ran.
    public var samples: [SoakSample]
    /// The server at rest after the last car left (once its descriptor count stopped changing).
    public var idleAfter: ProcessSample
    public var cycles: Int
    public var answers: Int
    public var failures: Int
    /// The first few failures, for the report.
    public var firstFailures: [String]

    /// The sample the RSS bound is measured from: the first one at or after a minute, else the first.
    public var reference: SoakSample? {
        samples.first { $0.elapsed >= .seconds(60) } ?? samples.first
    }

    /// Descriptors left open that were not open before the run.
    public var fdGrowth: Int { idleAfter.fds - idleBefore.fds }
    /// Threads at rest after the run beyond the most seen under load. Not the first sample's
    /// count: Dispatch starts a worker thread when a queue first gets work (the first cover
    /// scaled, say), which may be after the first sample, and keeps it a while after the load.
    public var threadGrowth: Int { idleAfter.threads - (samples.map(\.process.threads).max() ?? idleBefore.threads) }
    /// RSS of the last loaded sample relative to ``reference`` (0.03 = 3 % more).
    public var rssDrift: Double {
        guard let reference, let last = samples.last, reference.process.rssKiB > 0 else { return 0 }
        return Double(last.process.rssKiB - reference.process.rssKiB) / Double(reference.process.rssKiB)
    }

    /// The verdict the README's bound asks for: every answer right, no fd or thread growth, RSS
    /// within `rssTolerance` of its value after the first minute.
    public func problems(rssTolerance: Double = 0.05) -> [String] {
        var problems: [String] = []
        if failures > 0 { problems.append("\(failures) wrong or missing answers, first: \(firstFailures.first ?? "?")") }
        if cycles == 0 { problems.append("no car completed a session") }
        if fdGrowth > 0 { problems.append("\(fdGrowth) more descriptors at rest than before the run") }
        if threadGrowth > 0 { problems.append("\(threadGrowth) more threads at rest than under load") }
        if rssDrift > rssTolerance {
            problems.append(String(format: "RSS grew %.1f%% after the reference sample", rssDrift * 100))
        }
        return problems
    }
}

/// Runs `options.cars` soak cars against a server at `address` whose process is `pid`, sampling it.
public struct SoakRun: Sendable {
    public let address: ListenAddress
    public let pid: Int32
    public let options: SoakOptions

    public init(address: ListenAddress, pid: Int32, options: SoakOptions) {
        self.address = address
        self.pid = pid
        self.options = options
    }

    public func run(onSample: @escaping @Sendable (SoakSample) -> Void = { _ in }) async throws -> SoakReport {
        guard ProcessSample.read(pid: pid) != nil else {
            throw SoakFailure("cannot sample process \(pid): \(ProcessSample.readProblem(pid: pid))")
        }
        let identity = try TLSIdentity.generate(commonName: "dashport-soak car")
        let counters = SoakCounters()
        // The head unit's bye-bye grace (1 s by default) is as generous as every other wait: the
        // hour run saw two answers later than 1 s at a load average of 30 on 2 cores.
        var configuration = HeadUnitConfiguration().withDashportProfile(CarProfileOptions().profile)
        configuration.byeByeGrace = options.timeout
        let car = SoakCar(
            address: address,
            configuration: configuration,
            identity: identity, timeout: options.timeout, artworkSize: options.artworkSize,
            book: AnswerBook(), counters: counters)
        // One session first, ending in a bye-bye, so that what the server opens once on first use
        // (the reactor's timerfd, the artwork cache) is in the baseline rather than counted as growth.
        try await car.cycle(car: 0, number: 0)
        guard let idleBefore = await Self.settled(pid: pid, towards: 0) else { throw SoakFailure("process \(pid) is gone") }
        let clock = ContinuousClock()
        let start = clock.now
        let end = start + options.duration
        let samples = try await withThrowingTaskGroup(of: [SoakSample].self) { group in
            for index in 0..<options.cars {
                group.addTask {
                    var number = 0
                    while clock.now < end || number < options.minimumCyclesPerCar {
                        do {
                            try await car.cycle(car: index, number: number)
                            counters.cycled()
                            if options.pause > .zero { try? await Task.sleep(for: options.pause) }
                        } catch {
                            counters.failed("car \(index) session \(number): \(error)")
                            try? await Task.sleep(for: .milliseconds(500))
                        }
                        number += 1
                    }
                    return []
                }
            }
            group.addTask { [pid, options] in
                var taken: [SoakSample] = []
                var next = start + options.sampleInterval
                while next <= end {
                    try? await Task.sleep(until: next, clock: .continuous)
                    guard let process = ProcessSample.read(pid: pid) else { throw SoakFailure("process \(pid) is gone") }
                    let counts = counters.snapshot
                    let sample = SoakSample(
                        elapsed: next - start, process: process,
                        cycles: counts.cycles, answers: counts.answers, failures: counts.failures)
                    onSample(sample)
                    taken.append(sample)
                    next += options.sampleInterval
                }
                return taken
            }
            var all: [SoakSample] = []
            for try await part in group { all += part }
            return all.sorted { $0.elapsed < $1.elapsed }
        }
        let idleAfter = await Self.settled(pid: pid, towards: idleBefore.fds)
        let counts = counters.snapshot
        return SoakReport(
            idleBefore: idleBefore, samples: samples, idleAfter: idleAfter ?? idleBefore,
            cycles: counts.cycles, answers: counts.answers, failures: counts.failures, firstFailures: counts.firstFailures)
    }

    /// Samples until the descriptor count is back to `fds` or has not changed for 5 s (at most 60 s):
    /// the server closes a dropped car's socket when it notices, which takes a moment after the run.
    static func settled(pid: Int32, towards fds: Int) async -> ProcessSample? {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        var last = ProcessSample.read(pid: pid)
        var stableSince = clock.now
        while let current = last, current.fds > fds, clock.now < deadline, clock.now - stableSince < .seconds(5) {
            try? await Task.sleep(for: .milliseconds(250))
            let next = ProcessSample.read(pid: pid)
            if next?.fds != current.fds { stableSince = clock.now }
            last = next
        }
        return last
    }
}
