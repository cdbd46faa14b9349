import Dispatch
import Synchronization

/// Writes the persisted session off the session actor, on a serial queue of its own: an atomic
/// write with two fsyncs takes milliseconds on a real disk, and the actor answers cars meanwhile.
///
/// Coalescing: only the newest session handed to ``submit(_:)`` is kept while a write runs, so a
/// burst of submissions costs one write after the one in progress, and memory holds at most one
/// pending session. ``flush()`` waits until everything submitted before it is on disk (shutdown);
/// ``settled()`` is its asynchronous form.
///
/// Outcomes (a write failing after working, or working again after failing) are queued for the
/// actor, which takes them with ``takeOutcomes()``: the writer calls `onOutcome` (from its queue)
/// only when the failing state changes, so a healthy disk costs no hop back to the actor.
final class SessionWriter: Sendable {
    enum Outcome: Sendable {
        case failed(SessionStoreError)
        case recovered
    }

    private struct State {
        var pending: PersistedSession?
        var draining = false
        var failing = false
        var outcomes: [Outcome] = []
        var writes = 0
        var onOutcome: (@Sendable () -> Void)?
    }

    let store: SessionStore
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "dashport.session-writer")

    init(store: SessionStore) {
        self.store = store
    }

    /// Called (on the writer's queue) when an outcome is ready for ``takeOutcomes()``.
    func onOutcome(_ notify: @escaping @Sendable () -> Void) {
        state.withLock { $0.onOutcome = notify }
    }

    /// Hands `session` to the writer; it replaces one not yet written.
    func submit(_ session: PersistedSession) {
        let start = state.withLock { state -> Bool in
            state.pending = session
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
        if start { queue.async { self.drain() } }
    }

    /// Blocks until everything submitted so far is written (or failed).
    func flush() {
        queue.sync {}
    }

    /// Returns once everything submitted so far is written (or failed).
    func settled() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }

    /// Writes finished so far (successful or not): the seam tests count writes by.
    var writes: Int { state.withLock { $0.writes } }

    /// The outcomes not yet taken, oldest first.
    func takeOutcomes() -> [Outcome] {
        state.withLock { state in
            defer { state.outcomes = [] }
            return state.outcomes
        }
    }

    private func drain() {
        while let session = state.withLock({ state -> PersistedSession? in
            guard let next = state.pending else {
                state.draining = false
                return nil
            }
            state.pending = nil
            return next
        }) {
            let error: SessionStoreError?
            do throws(SessionStoreError) {
                try store.save(session)
                error = nil
            } catch let failure {
                error = failure
            }
            let notify = state.withLock { state -> (@Sendable () -> Void)? in
                state.writes += 1
                let wasFailing = state.failing
                state.failing = error != nil
                if let error, !wasFailing {
                    state.outcomes.append(.failed(error))
                } else if error == nil, wasFailing {
                    state.outcomes.append(.recovered)
                } else {
                    return nil
                }
                return state.onOutcome
            }
            notify?()
        }
    }
}
