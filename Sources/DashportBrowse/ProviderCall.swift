// Sources/DashportBrowse/ProviderCall.swift - one provider call that many requests wait on, each with a deadline.

import DashportClock
import Synchronization

/// One call into a provider, shared by every request that needs its answer.
///
/// The call keeps running when a waiter's deadline passes: that waiter gets ``Outcome/timedOut``
/// (and answers from the cache), while later waiters still get the answer. Waiting never hangs
/// longer than the timeout, whatever the provider does.
final class ProviderCall<Value: Sendable>: Sendable {
    enum Outcome: Sendable {
        case answered(Result<Value, any Error>)
        case timedOut
    }

    private struct Waiter {
        var continuation: CheckedContinuation<Outcome, Never>
        var timer: Task<Void, Never>?
    }

    private struct State {
        var result: Result<Value, any Error>?
        var waiters: [Int: Waiter] = [:]
        var nextKey = 0
    }

    private let state = Mutex(State())

    /// Starts `body` on its own task; its result goes to every waiter.
    init(_ body: @escaping @Sendable () async throws -> Value) {
        Task.detached { [self] in
            do {
                finish(.success(try await body()))
            } catch {
                finish(.failure(error))
            }
        }
    }

    /// Whether the provider has answered (or failed).
    var isFinished: Bool { state.withLock { $0.result != nil } }

    /// The provider's result, or `.timedOut` when `timeout` passes first (nil waits for the result).
    func wait(timeout: Duration?, clock: any DashportClock) async -> Outcome {
        await withCheckedContinuation { continuation in
            let registered: Int? = state.withLock { state in
                guard state.result == nil else { return nil }
                let key = state.nextKey
                state.nextKey += 1
                state.waiters[key] = Waiter(continuation: continuation, timer: nil)
                return key
            }
            guard let key = registered else {
                // Answered already: the result is set once and never cleared.
                let result = state.withLock { $0.result }
                continuation.resume(returning: result.map(Outcome.answered) ?? .timedOut)
                return
            }
            guard let timeout else { return }
            let timer = Task.detached { [self] in
                do {
                    try await clock.sleep(for: timeout)
                } catch {
                    return  // cancelled: the answer came first
                }
                expire(key)
            }
            let attached = state.withLock { state in
                guard state.waiters[key] != nil else { return false }
                state.waiters[key]?.timer = timer
                return true
            }
            if !attached { timer.cancel() }
        }
    }

    private func finish(_ result: Result<Value, any Error>) {
        let waiters = state.withLock { state in
            state.result = result
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters {
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: .answered(result))
        }
    }

    private func expire(_ key: Int) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: key) }
        waiter?.continuation.resume(returning: .timedOut)
    }
}
