public import Testing

/// A waited-for condition did not hold in time; the test fails instead of hanging.
public struct TestTimeout: Error, CustomStringConvertible {
    public let what: String
    public init(what: String) { self.what = what }
    public var description: String { "timed out waiting for \(what)" }
}

/// Polls `condition` until it holds, for at most `timeout` (generous by default: these waits are
/// for events, never measurements of speed, and a loaded 2-core CI machine must not fail them).
/// Records an issue naming `what` and throws ``TestTimeout`` when time runs out. Runs on the
/// caller's actor, so `condition` may read that actor's state (a test car's events).
public func eventually(
    _ what: String,
    timeout: Duration = .seconds(60),
    poll: Duration = .milliseconds(10),
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while try await !condition() {
        if clock.now > deadline {
            Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation)
            throw TestTimeout(what: what)
        }
        try await Task.sleep(for: poll)
    }
}
