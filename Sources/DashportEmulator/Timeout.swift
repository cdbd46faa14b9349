package import DashportClock
import DashportHeadUnit
import DashportLink
import DashportTLS
import DashportTransport

/// A bounded wait ran out; ``withTimeout(_:clock:_:)`` throws it.
package struct TimeoutExpired: Error, Sendable {}

/// Runs `operation`, cancelling it and throwing ``TimeoutExpired`` if it has not finished after
/// `timeout` on `clock`. The operation must honour cancellation for the timeout to take effect promptly.
package func withTimeout<T: Sendable>(
    _ timeout: Duration, clock: any DashportClock, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try? await clock.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        // The first task to finish decides; `nil` is the timer.
        guard let first = try await group.next(), let value = first else { throw TimeoutExpired() }
        return value
    }
}

extension Duration {
    /// "1.5 s", "250 ms": for messages people read.
    package var secondsText: String {
        let milliseconds = wholeMicroseconds / 1000
        if milliseconds < 1000 { return "\(milliseconds) ms" }
        let tenths = milliseconds / 100
        return tenths % 10 == 0 ? "\(tenths / 10) s" : "\(tenths / 10).\(tenths % 10) s"
    }
}
