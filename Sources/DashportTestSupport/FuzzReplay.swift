import DashportFuzzDrivers
import Synchronization
import Testing

/// Runs the shared fuzz drivers (DashportFuzzDrivers) in a test: a broken invariant becomes an
/// issue naming the replayed input, or is collected to check that the checks fire.
public enum FuzzReplay {
    /// Runs `body` (a driver on the input called `name`), recording each violation as an issue.
    public static func run(_ name: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () -> Void) {
        FuzzInvariant.$handler.withValue({ Issue.record("\(name): \($0)", sourceLocation: sourceLocation) }) { body() }
    }

    /// Runs `body` and returns the violations the driver reported during it.
    public static func violations(during body: () -> Void) -> [String] {
        let collected = Mutex<[String]>([])
        FuzzInvariant.$handler.withValue({ message in collected.withLock { $0.append(message) } }) { body() }
        return collected.withLock { $0 }
    }
}
