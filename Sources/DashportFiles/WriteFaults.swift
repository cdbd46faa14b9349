import Synchronization

/// Whether writes into one place (a cache directory, the session file) are failing, so that a full
/// or failing disk is logged once when it starts, with its cause, and once when it ends, instead of
/// on every write in between.
///
/// The caller keeps one per place and tells it the outcome of every write; it answers whether that
/// outcome started or ended a fault, which is when the caller logs.
public struct WriteHealth: Sendable, Hashable {
    /// The cause of the first failed write of the current fault; nil while writes work.
    public private(set) var cause: String?
    /// Writes that failed since the fault started.
    public private(set) var failedWrites = 0

    public init() {}

    /// Whether writes are failing now.
    public var isFailing: Bool { cause != nil }

    /// Records a failed write. True when it starts a fault: the caller logs it, with `cause`.
    public mutating func failed(_ cause: some CustomStringConvertible) -> Bool {
        failedWrites += 1
        guard self.cause == nil else { return false }
        self.cause = cause.description
        return true
    }

    /// Records a write that worked. When it ends a fault, how many writes failed during it (the
    /// caller logs the recovery); otherwise nil.
    public mutating func succeeded() -> Int? {
        guard cause != nil else { return nil }
        defer {
            cause = nil
            failedWrites = 0
        }
        return failedWrites
    }
}

extension Files {
    /// Makes writes under a directory fail as on a full or failing disk, for tests: every
    /// ``writeAll(_:to:path:)`` to a path under `directory` writes half of what it was given and
    /// then fails with `code` (`ENOSPC`, `EIO`, `EFBIG`), exactly where the kernel would report it.
    /// Everything above (the atomic write's clean-up, the caller's fallback and its logging) runs
    /// as it would on a real full disk. Paths elsewhere are untouched, so tests running in parallel
    /// in one process do not see each other's faults. ``clearWriteFault(under:)`` ends it.
    package static func injectWriteFault(_ code: Int32, under directory: String) {
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        injectedFaults.withLock { $0[prefix] = code }
        faultsInjected.store(true, ordering: .releasing)
    }

    /// Ends a fault set by ``injectWriteFault(_:under:)``: writes under `directory` work again.
    package static func clearWriteFault(under directory: String) {
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        injectedFaults.withLock { $0[prefix] = nil }
    }

    /// The `errno` an injected fault gives a write to `path`, if any. One atomic load when no test
    /// ever injected a fault.
    static func injectedFault(for path: String) -> Int32? {
        guard faultsInjected.load(ordering: .acquiring) else { return nil }
        return injectedFaults.withLock { faults in faults.first { path.hasPrefix($0.key) }?.value }
    }

    private static let injectedFaults = Mutex<[String: Int32]>([:])
    private static let faultsInjected = Atomic<Bool>(false)
}
