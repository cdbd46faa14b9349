public import FoundationEssentials

/// The real clock: Swift's `ContinuousClock` (monotonic, keeps counting while the machine sleeps),
/// with instants measured from the moment this value was created.
public struct SystemClock: DashportClock {
    private let origin: ContinuousClock.Instant

    public init() {
        self.origin = ContinuousClock.now
    }

    public var now: ClockInstant {
        ClockInstant(sinceOrigin: ContinuousClock.now - origin)
    }

    public var preciseNow: Duration { ContinuousClock.now - origin }

    public var minimumResolution: Duration { .milliseconds(1) }

    public func sleep(until deadline: ClockInstant, tolerance: Duration?) async throws {
        try await Task.sleep(until: origin + deadline.sinceOrigin, tolerance: tolerance, clock: .continuous)
    }

    public func wallTime() -> Date { Date() }
}
