import Synchronization

/// A process-wide cap on what all cars together make the server hold in unfinished messages.
///
/// Each link caps its own (``FrameLimits/maxPendingBytes``, 4 MiB once the car is authenticated,
/// 64 KiB before: `LinkConfiguration.unauthenticatedMaxPendingBytes`), but with hundreds of cars
/// that still multiplies to gigabytes. Every car connection charges what its link holds here after
/// each read; the car whose growth takes the total over ``limit`` is closed, so the total never
/// passes the limit by more than one car's last message (at most 1 MiB, a FIRST frame's declared
/// total). A car that sends whole messages holds nothing between reads and is never the one closed.
final class ReassemblyBudget: Sendable {
    /// Default: 64 MiB, sixteen cars each at their full 4 MiB.
    static let defaultLimit = 64 * 1024 * 1024

    /// Total bytes all cars may hold in unfinished messages.
    let limit: Int
    private let total = Atomic<Int>(0)

    init(limit: Int = ReassemblyBudget.defaultLimit) {
        self.limit = max(1, limit)
    }

    /// Bytes held now by all cars together.
    var heldBytes: Int { total.load(ordering: .relaxed) }

    /// Moves one car's charge from `old` to `new` bytes. True when that car grew and the total is
    /// now over the limit: the caller closes the car (and charges it `0`).
    func recharge(from old: Int, to new: Int) -> Bool {
        let delta = new - old
        guard delta != 0 else { return false }
        let now = total.add(delta, ordering: .relaxed).newValue
        return delta > 0 && now > limit
    }
}
