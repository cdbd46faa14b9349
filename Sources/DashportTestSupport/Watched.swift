import Synchronization
public import Testing

/// A value that changes on other threads (a transport's callbacks, a stream's consumer), on which
/// a test awaits a condition. Woken by each change, not by polling; every wait is bounded by a
/// generous timeout, a guard against hangs that never matters on a healthy run.
public final class Watched<Value: Sendable>: Sendable {
    private struct Waiter {
        let id: Int
        let condition: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var value: Value
        var waiters: [Waiter] = []
        var expired: Set<Int> = []
        var nextID = 0
    }

    private let state: Mutex<State>

    public init(_ value: Value) { state = Mutex(State(value: value)) }

    public var value: Value { state.withLock { $0.value } }

    /// Changes the value and wakes every wait whose condition now holds.
    public func update(_ change: (inout Value) -> Void) {
        let ready = state.withLock { state -> [Waiter] in
            change(&state.value)
            let value = state.value
            let ready = state.waiters.filter { $0.condition(value) }
            state.waiters.removeAll { waiter in ready.contains { $0.id == waiter.id } }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    /// Returns the value once `condition` holds; records an issue naming `what` and throws
    /// ``TestTimeout`` after `timeout`.
    @discardableResult
    public func wait(
        _ what: String, timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation,
        until condition: @escaping @Sendable (Value) -> Bool
    ) async throws -> Value {
        guard let value = await value(when: condition, timeout: timeout) else {
            Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation)
            throw TestTimeout(what: what)
        }
        return value
    }

    /// The value once `condition` holds, or `nil` after `timeout` (nothing recorded).
    public func value(when condition: @escaping @Sendable (Value) -> Bool, timeout: Duration) async -> Value? {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let deadline = Task { [self] in
            try? await Task.sleep(for: timeout)
            expire(id)
        }
        defer { deadline.cancel() }
        let met = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let immediate = state.withLock { state -> Bool? in
                if condition(state.value) { return true }
                if state.expired.contains(id) { return false }
                state.waiters.append(Waiter(id: id, condition: condition, continuation: continuation))
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
        return met ? value : nil
    }

    private func expire(_ id: Int) {
        let waiter = state.withLock { state -> Waiter? in
            state.expired.insert(id)
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(returning: false)
    }
}

/// Collects what an `AsyncStream` delivers (a client's events) and lets a test wait until what it
/// has satisfies a condition, or the stream ended.
public actor Recorder<Element: Sendable> {
    private struct Log: Sendable {
        var items: [Element] = []
        var finished = false
    }

    private let log = Watched(Log())

    /// Starts consuming `stream` into a new recorder.
    public static func recording(_ stream: AsyncStream<Element>) -> Recorder<Element> {
        let recorder = Recorder()
        let log = recorder.log
        Task {
            for await item in stream { log.update { $0.items.append(item) } }
            log.update { $0.finished = true }
        }
        return recorder
    }

    /// Everything delivered so far, in order.
    public var items: [Element] { log.value.items }

    /// Whether `condition` holds for the items, waiting up to `timeout` (or the stream's end).
    public func wait(timeout: Duration = .seconds(20), until condition: @escaping @Sendable ([Element]) -> Bool) async -> Bool {
        let seen = await log.value(when: { condition($0.items) || $0.finished }, timeout: timeout)
        return seen.map { condition($0.items) } ?? false
    }
}
