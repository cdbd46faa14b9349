import DashportThread
import Glibc
import Synchronization

/// Something the browser harness waited for did not come, or the browser said no.
public struct BrowserFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The Chrome DevTools Protocol over `--remote-debugging-pipe`: commands go to chromium's fd 3,
/// replies and events come from its fd 4, each message one JSON text ended by a NUL byte.
///
/// One thread of its own reads the pipe (with `poll`, so it also notices deadlines): it resolves
/// each command's reply by id, hands events to the listeners and to the ``event(_:session:timeout:while:)``
/// waits armed for them, and fails every wait whose deadline passed, naming what was waited for.
/// A message longer than ``maximumMessage`` ends the connection with that reason.
final class DevToolsPipe: Sendable {
    /// Bigger than any screenshot of the test window (a 1280×800 PNG in base64 is a few MiB).
    static let maximumMessage = 64 << 20

    private struct Waiter {
        let what: String
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<BrowserJSON, any Error>
    }

    /// An event wait armed before the command that causes it: the event is kept if it comes first.
    private struct EventSlot {
        let method: String
        let session: String?
        var received: BrowserJSON?
        var waiter: Waiter?
    }

    private struct State {
        var nextID = 1
        var replies: [Int: Waiter] = [:]
        var slots: [Int: EventSlot] = [:]
        var exitWaiters: [Waiter] = []
        var listeners: [@Sendable (BrowserJSON) -> Void] = []
        /// Why the pipe no longer works (end of file, a write error, an oversized message).
        var closed: String?
        var exitStatus: Int32?
    }

    private let writeFD: Int32
    private let readFD: Int32
    private let pid: pid_t
    private let state = Mutex(State())
    /// Held while a message is written (messages never interleave); true once the write end is closed.
    private let writing = Mutex(false)
    /// What chromium printed (its stdout and stderr file), for failure messages.
    let logPath: String

    init(pid: pid_t, writeFD: Int32, readFD: Int32, logPath: String) {
        self.pid = pid
        self.writeFD = writeFD
        self.readFD = readFD
        self.logPath = logPath
        OSThread.start(name: "cdp-reader") { [self] in readLoop() }
        OSThread.start(name: "cdp-reaper") { [self] in reap() }
    }

    /// The last lines chromium printed.
    var logTail: String {
        guard let file = fopen(logPath, "r") else { return "(no log)" }
        defer { fclose(file) }
        var lines: [String] = []
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            lines.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).trimmingSuffix("\n"))
            if lines.count > 12 { lines.removeFirst() }
        }
        return lines.joined(separator: "\n")
    }

    /// Adds a listener that sees every event (on the reader thread; keep it short).
    func listen(_ listener: @escaping @Sendable (BrowserJSON) -> Void) {
        state.withLock { $0.listeners.append(listener) }
    }

    /// Sends a command and returns its `result`; throws its `error`, or when no reply came in `timeout`.
    func command(_ method: String, _ params: BrowserJSON = [:], session: String? = nil, timeout: Duration) async throws -> BrowserJSON {
        try await withCheckedThrowingContinuation { continuation in
            let waiter = Waiter(what: "the reply to \(method)", deadline: .now + timeout, continuation: continuation)
            let registered: Int? = state.withLock { state in
                guard state.closed == nil else { return nil }
                let id = state.nextID
                state.nextID += 1
                state.replies[id] = waiter
                return id
            }
            guard let id = registered else {
                continuation.resume(throwing: BrowserFailure("\(method): the browser is gone (\(closedReason))\n\(logTail)"))
                return
            }
            var message: [String: BrowserJSON] = ["id": .number(Double(id)), "method": .string(method), "params": params]
            if let session { message["sessionId"] = .string(session) }
            if let problem = write(BrowserJSON.object(message).serialized + [0]) {
                markClosed(because: "writing \(method): \(problem)")
            }
        }
    }

    /// Arms a wait for the first `method` event (of `session`, when given), runs `trigger`, then
    /// waits for that event at most `timeout` and returns its params.
    func event(_ method: String, session: String?, timeout: Duration, while trigger: () async throws -> Void) async throws -> BrowserJSON {
        let slot = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.slots[id] = EventSlot(method: method, session: session)
            return id
        }
        do {
            try await trigger()
        } catch {
            _ = state.withLock { $0.slots.removeValue(forKey: slot) }
            throw error
        }
        return try await withCheckedThrowingContinuation { continuation in
            let waiter = Waiter(what: "the event \(method)", deadline: .now + timeout, continuation: continuation)
            let outcome: Result<BrowserJSON, BrowserFailure>? = state.withLock { state in
                guard let armed = state.slots[slot] else { return .failure(BrowserFailure("\(method): the wait was dropped")) }
                if let received = armed.received {
                    state.slots[slot] = nil
                    return .success(received)
                }
                if let closed = state.closed {
                    state.slots[slot] = nil
                    return .failure(BrowserFailure("waiting for \(method): the browser is gone (\(closed))"))
                }
                state.slots[slot]?.waiter = waiter
                return nil
            }
            if let outcome { continuation.resume(with: outcome.mapError { $0 as any Error }) }
        }
    }

    /// Waits until chromium has exited (and was reaped) and returns its wait status.
    func exit(timeout: Duration) async throws -> Int32 {
        try await withCheckedThrowingContinuation { continuation in
            let waiter = Waiter(what: "chromium (pid \(pid)) to exit", deadline: .now + timeout, continuation: continuation)
            let status: Int32? = state.withLock { state in
                if let status = state.exitStatus { return status }
                state.exitWaiters.append(waiter)
                return nil
            }
            if let status { continuation.resume(returning: .number(Double(status))) }
        }.int.map(Int32.init) ?? -1
    }

    /// Sends `signal` to chromium's process group (it was started as the group's leader), unless reaped.
    func signal(_ signal: Int32) {
        state.withLock { state in
            if state.exitStatus == nil { _ = kill(-pid, signal) }
        }
    }

    var closedReason: String { state.withLock { $0.closed } ?? "open" }

    private func write(_ bytes: [UInt8]) -> String? {
        writing.withLock { closed in
            guard !closed else { return "the command pipe is closed" }
            var done = 0
            while done < bytes.count {
                let n = bytes[done...].withUnsafeBytes { Glibc.write(writeFD, $0.baseAddress, $0.count) }
                if n < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                done += n
            }
            return nil
        }
    }

    private func readLoop() {
        markClosed(because: readUntilClosed())
        // Exit waits still need their deadlines checked until the reaper has seen the exit.
        while state.withLock({ $0.exitStatus == nil || !$0.exitWaiters.isEmpty }) {
            OSThread.sleep(for: .milliseconds(250))
            expire()
        }
        close(readFD)
    }

    /// Closes the command pipe: chromium sees its end of file and exits.
    func closeCommands() {
        writing.withLock { closed in
            if !closed { close(writeFD) }
            closed = true
        }
    }

    /// Reads and delivers messages until the pipe fails; returns why.
    private func readUntilClosed() -> String {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            var descriptor = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 250)
            expire()
            guard ready > 0 else {
                if ready < 0 && errno != EINTR { return "poll: \(String(cString: strerror(errno)))" }
                continue
            }
            let n = read(readFD, &chunk, chunk.count)
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return "reading the pipe: \(String(cString: strerror(errno)))"
            }
            if n == 0 { return "chromium closed its end of the pipe" }
            var start = pending.count
            pending += chunk[0..<n]
            while let end = pending[start...].firstIndex(of: 0) {
                if let problem = deliver(pending[0..<end]) { return problem }
                pending.removeSubrange(0...end)
                start = 0
            }
            if pending.count > Self.maximumMessage {
                return "a message of more than \(Self.maximumMessage) bytes"
            }
        }
    }

    /// Resolves the reply or hands out the event; returns why the pipe is unusable, if it is.
    private func deliver(_ bytes: ArraySlice<UInt8>) -> String? {
        guard let message = try? BrowserJSON.parse(bytes) else {
            return "a message that is not JSON: \(String(decoding: bytes.prefix(200), as: UTF8.self))"
        }
        if let id = message["id"]?.int {
            guard let waiter = state.withLock({ $0.replies.removeValue(forKey: id) }) else { return nil }
            if let error = message["error"] {
                let text = error["message"]?.string ?? error.description
                waiter.continuation.resume(throwing: BrowserFailure("\(waiter.what): \(text) \(error["data"]?.string ?? "")"))
            } else {
                waiter.continuation.resume(returning: message["result"] ?? [:])
            }
            return nil
        }
        guard let method = message["method"]?.string else { return nil }
        let session = message["sessionId"]?.string
        let params = message["params"] ?? [:]
        let (listeners, woken) = state.withLock { state -> ([@Sendable (BrowserJSON) -> Void], [Waiter]) in
            var woken: [Waiter] = []
            for (id, slot) in state.slots where slot.method == method && slot.received == nil {
                guard slot.session == nil || slot.session == session else { continue }
                if let waiter = slot.waiter {
                    woken.append(waiter)
                    state.slots[id] = nil
                } else {
                    state.slots[id]?.received = params
                }
            }
            return (state.listeners, woken)
        }
        for waiter in woken { waiter.continuation.resume(returning: params) }
        for listener in listeners { listener(message) }
        return nil
    }

    /// Fails every wait whose deadline has passed.
    private func expire() {
        let now = ContinuousClock.now
        let late = state.withLock { state -> [Waiter] in
            var late: [Waiter] = []
            for (id, waiter) in state.replies where waiter.deadline < now {
                late.append(waiter)
                state.replies[id] = nil
            }
            for (id, slot) in state.slots {
                if let waiter = slot.waiter, waiter.deadline < now {
                    late.append(waiter)
                    state.slots[id] = nil
                }
            }
            late += state.exitWaiters.filter { $0.deadline < now }
            state.exitWaiters.removeAll { $0.deadline < now }
            return late
        }
        guard !late.isEmpty else { return }
        let log = logTail
        for waiter in late {
            waiter.continuation.resume(throwing: BrowserFailure("timed out waiting for \(waiter.what); chromium's last lines:\n\(log)"))
        }
    }

    /// Marks the pipe closed and fails every command and event wait.
    private func markClosed(because reason: String) {
        let waiters = state.withLock { state -> [Waiter] in
            if state.closed == nil { state.closed = reason }
            let waiters = Array(state.replies.values) + state.slots.values.compactMap(\.waiter)
            state.replies.removeAll()
            state.slots.removeAll()
            return waiters
        }
        guard !waiters.isEmpty else { return }
        let log = logTail
        for waiter in waiters {
            waiter.continuation.resume(throwing: BrowserFailure("\(waiter.what): the browser is gone (\(reason))\n\(log)"))
        }
    }

    private func reap() {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let waiters = state.withLock { state -> [Waiter] in
            state.exitStatus = status
            defer { state.exitWaiters.removeAll() }
            return state.exitWaiters
        }
        for waiter in waiters { waiter.continuation.resume(returning: .number(Double(status))) }
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
