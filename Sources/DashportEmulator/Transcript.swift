public import DashportClock

/// The emulator's output: every line goes to a sink (standard output in the tool, an array in
/// tests) and is kept so that `expect <text>` can look for it.
///
/// `expect` searches the lines printed since the last successful `expect` and waits for new ones
/// up to a timeout, because pushes arrive whenever the server sends them.
public actor Transcript {
    /// Lines kept for `expect`; older ones are dropped in halves beyond this.
    public static let maxKeptLines = 20_000

    private let sink: @Sendable (String) -> Void
    /// What `expect` times out on.
    private let clock: any DashportClock
    private var kept: [(line: String, searchable: Bool)] = []
    /// Lines dropped from the front of ``kept`` so far.
    private var dropped = 0
    /// Absolute number of the first line the next `expect` may match.
    private var cursor = 0
    private var waiters: [Int: (text: String, continuation: CheckedContinuation<Bool, Never>)] = [:]
    private var nextWaiterID = 0
    /// Notices waiting for the screen being drawn (``holdNotices()``), and how many holds are open.
    private var heldNotices: [[String]] = []
    private var holds = 0
    /// Notices kept while held, at most; older ones beyond it are dropped (a screen takes seconds
    /// at worst, and pushes are state, so the newest matter).
    public static let maxHeldNotices = 1000

    /// `sink` receives each line without its newline; `expect` waits on `clock`.
    public init(clock: any DashportClock = SystemClock(), sink: @escaping @Sendable (String) -> Void) {
        self.clock = clock
        self.sink = sink
    }

    /// Every line still kept, oldest first.
    public var lines: [String] { kept.map(\.line) }

    /// Prints lines, in order, and wakes an `expect` waiting for one of them. Lines that are not
    /// `searchable` (a script's echo of its own commands) are never matched by `expect`.
    public func print(_ lines: [String], searchable: Bool = true) {
        for line in lines {
            sink(line)
            kept.append((line, searchable))
        }
        if kept.count > Self.maxKeptLines {
            let half = kept.count / 2
            kept.removeFirst(half)
            dropped += half
        }
        for (id, waiter) in waiters {
            if consume(waiter.text) {
                waiters[id] = nil
                waiter.continuation.resume(returning: true)
            }
        }
    }

    public func print(_ line: String) { print([line]) }

    /// Prints a push (a notice): at once, or after the screen being drawn when notices are held.
    public func printNotice(_ lines: [String]) {
        guard holds > 0 else { return print(lines) }
        heldNotices.append(lines)
        if heldNotices.count > Self.maxHeldNotices { heldNotices.removeFirst(heldNotices.count - Self.maxHeldNotices) }
    }

    /// Notices wait from now until the matching ``releaseNotices()``, so a screen is not cut by them.
    public func holdNotices() { holds += 1 }

    /// Ends one hold; when none is left, the waiting notices are printed in order.
    public func releaseNotices() {
        holds = max(0, holds - 1)
        guard holds == 0 else { return }
        let pending = heldNotices
        heldNotices = []
        for lines in pending { print(lines) }
    }

    /// Whether `text` shows up in a line printed since the last successful expectation, waiting up
    /// to `timeout` on the transcript's clock for it. A match moves the search start past the matching line.
    public func expect(_ text: String, within timeout: Duration) async -> Bool {
        if consume(text) { return true }
        let id = nextWaiterID
        nextWaiterID += 1
        let expiry = Task { [weak self, clock] in
            try? await clock.sleep(for: timeout)
            await self?.expire(id)
        }
        defer { expiry.cancel() }
        return await withCheckedContinuation { waiters[id] = (text, $0) }
    }

    private func consume(_ text: String) -> Bool {
        let start = max(cursor - dropped, 0)
        guard start < kept.count, let index = kept[start...].firstIndex(where: { $0.searchable && $0.line.contains(text) }) else {
            return false
        }
        cursor = index + dropped + 1
        return true
    }

    private func expire(_ id: Int) {
        waiters.removeValue(forKey: id)?.continuation.resume(returning: false)
    }
}
