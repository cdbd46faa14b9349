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
    /// How long the idle server is watched before and after the run for its private memory to
    /// come back (see `SoakRun.memorySettled`); the smoke test, which bounds no memory, sets zero.
    public var memorySettle: Duration = .seconds(70)
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

    /// The sample the RSS bound is measured from: the median by RSS of the minute after the first
    /// one (60–120 s; of an even count, the lower middle), else the first sample at or after a
    /// minute, else the first.
    ///
    /// Neither one sample nor a minute's peak: with cars connecting and leaving all the time a
    /// sample lands anywhere between 0 and 100 cars connected (17 to 112 descriptors), and RSS
    /// follows (~0.13 MiB a connected car). Over an hour of 100 cars the minutes' peaks ranged
    /// 58.0–71.0 MiB while their floors stayed at 57.8–59.1 from the third minute on, so a peak
    /// against a peak measured how crowded two instants were, not growth.
    /// A minute's median is the server at its usual crowd; memory that is kept moves it.
    public var reference: SoakSample? {
        Self.median(samples.filter { $0.elapsed >= .seconds(60) && $0.elapsed < .seconds(120) })
            ?? samples.first { $0.elapsed >= .seconds(60) } ?? samples.first
    }

    /// What ``reference`` is compared with: the median by RSS of the run's last minute (when the
    /// run is long enough for the two minutes not to overlap), else the last sample.
    public var final: SoakSample? {
        guard let last = samples.last else { return nil }
        guard last.elapsed >= .seconds(180) else { return last }
        return Self.median(lastMinute)
    }

    var lastMinute: [SoakSample] {
        guard let last = samples.last else { return [] }
        return samples.filter { $0.elapsed > last.elapsed - .seconds(60) }
    }

    static func peak(_ samples: [SoakSample]) -> SoakSample? {
        samples.max { $0.process.rssKiB < $1.process.rssKiB }
    }

    static func median(_ samples: [SoakSample]) -> SoakSample? {
        guard !samples.isEmpty else { return nil }
        return samples.sorted { $0.process.rssKiB < $1.process.rssKiB }[(samples.count - 1) / 2]
    }

    /// The highest RSS of the last minute against the highest of 60–120 s (how the tool measured
    /// before the medians; printed, not bounded).
    public var peakDrift: Double {
        let second = samples.filter { $0.elapsed >= .seconds(60) && $0.elapsed < .seconds(120) }
        guard let from = Self.peak(second), let to = Self.peak(lastMinute), from.process.rssKiB > 0,
            let last = samples.last, last.elapsed >= .seconds(180)
        else { return 0 }
        return Double(to.process.rssKiB - from.process.rssKiB) / Double(from.process.rssKiB)
    }

    /// The last sample against the first at or after a minute, as the tool measured first
    /// (printed, not bounded).
    public var lastSampleDrift: Double {
        guard let first = samples.first(where: { $0.elapsed >= .seconds(60) }), let last = samples.last, first.process.rssKiB > 0
        else { return 0 }
        return Double(last.process.rssKiB - first.process.rssKiB) / Double(first.process.rssKiB)
    }

    /// Descriptors left open that were not open before the run.
    public var fdGrowth: Int { idleAfter.fds - idleBefore.fds }
    /// Threads at rest after the run beyond the most seen under load. Not the first sample's
    /// count: Dispatch starts a worker thread when a queue first gets work (the first cover
    /// scaled, say), which may be after the first sample, and keeps it a while after the load.
    public var threadGrowth: Int { idleAfter.threads - (samples.map(\.process.threads).max() ?? idleBefore.threads) }
    /// Private memory (RssAnon) the idle server holds after the run beyond what it held before it,
    /// KiB: what no car owns any more (issue 23 item 7 found 10.6 MiB).
    public var idleAnonGrowthKiB: Int { idleAfter.rssAnonKiB - idleBefore.rssAnonKiB }

    /// RSS of ``final`` relative to ``reference`` (0.03 = 3 % more).
    public var rssDrift: Double {
        guard let reference, let final, reference.process.rssKiB > 0 else { return 0 }
        return Double(final.process.rssKiB - reference.process.rssKiB) / Double(reference.process.rssKiB)
    }

    /// The verdict the README's bound asks for: every answer right, no fd or thread growth, the
    /// last minute's median RSS within `rssTolerance` of the second minute's, and the idle server's private
    /// memory after the run within `idleToleranceKiB` of what it was before.
    public func problems(rssTolerance: Double = 0.05, idleToleranceKiB: Int = 1024) -> [String] {
        var problems: [String] = []
        if failures > 0 { problems.append("\(failures) wrong or missing answers, first: \(firstFailures.first ?? "?")") }
        if cycles == 0 { problems.append("no car completed a session") }
        if fdGrowth > 0 { problems.append("\(fdGrowth) more descriptors at rest than before the run") }
        if threadGrowth > 0 { problems.append("\(threadGrowth) more threads at rest than under load") }
        if rssDrift > rssTolerance {
            problems.append(String(format: "RSS grew %.1f%% from the median of 60–120 s to the last minute's", rssDrift * 100))
        }
        if idleAnonGrowthKiB > idleToleranceKiB {
            problems.append(
                String(
                    format: "the idle server holds %.1f MiB more private memory (RssAnon) than before the run (bound %.1f MiB)",
                    Double(idleAnonGrowthKiB) / 1024, Double(idleToleranceKiB) / 1024))
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

    /// `onIdleBefore` gets the idle server's sample before the first car (so a run cut short
    /// still shows it); `onSample` each sample under load.
    public func run(
        onIdleBefore: @Sendable (ProcessSample) -> Void = { _ in }, onSample: @escaping @Sendable (SoakSample) -> Void = { _ in }
    ) async throws -> SoakReport {
        guard ProcessSample.read(pid: pid) != nil else {
            throw SoakFailure("cannot sample process \(pid): \(ProcessSample.readProblem(pid: pid))")
        }
        let identity = try TLSIdentity.generate(commonName: "dashport-soak car")
        let counters = SoakCounters()
        // The head unit's bye-bye grace (1 s by default) is as generous as every other wait: the
        // hour run saw two answers later than 1 s at a load average of 30 on 2 cores.
        var configuration = HeadUnitConfiguration().withDashportProfile(CarProfileOptions().profile)
        configuration.byeByeGrace = options.timeout
        // So is the car's handshake deadline (10 s by default): beside `stress --cpu 4` and two
        // builds (load 20) a smoke run's TLS handshake took longer, and the car gave up.
        configuration.handshakeDeadline = max(configuration.handshakeDeadline, options.timeout)
        let car = SoakCar(
            address: address,
            configuration: configuration,
            identity: identity, timeout: options.timeout, artworkSize: options.artworkSize,
            book: AnswerBook(), counters: counters)
        // One session first, ending in a bye-bye, so that what the server opens once on first use
        // (the reactor's timerfd, the artwork cache) is in the baseline rather than counted as growth.
        try await car.cycle(car: 0, number: 0)
        guard let settledBefore = await Self.settled(pid: pid, towards: 0) else { throw SoakFailure("process \(pid) is gone") }
        let idleBefore = await Self.memorySettled(pid: pid, from: settledBefore, settle: options.memorySettle)
        onIdleBefore(idleBefore)
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
        var idleAfter = await Self.settled(pid: pid, towards: idleBefore.fds)
        if let settledAfter = idleAfter { idleAfter = await Self.memorySettled(pid: pid, from: settledAfter, settle: options.memorySettle) }
        let counts = counters.snapshot
        return SoakReport(
            idleBefore: idleBefore, samples: samples, idleAfter: idleAfter ?? idleBefore,
            cycles: counts.cycles, answers: counts.answers, failures: counts.failures, firstFailures: counts.firstFailures)
    }

    /// The process after `settle` at rest (sampled every 250 ms, so a process gone is seen). The
    /// server gives its free memory back when the last car's connection has ended and again over
    /// the next 65 s (ConnectionRegistry.idleTrimDelays: the cars' request timers, up to 60 s,
    /// free theirs when they fire); 70 s is after the last of those trims.
    static func memorySettled(pid: Int32, from first: ProcessSample, settle: Duration = .seconds(70)) async -> ProcessSample {
        let clock = ContinuousClock()
        let deadline = clock.now + settle
        var last = first
        while clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(250))
            guard let next = ProcessSample.read(pid: pid) else { break }
            last = next
        }
        return last
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
