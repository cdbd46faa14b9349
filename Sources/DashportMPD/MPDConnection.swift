// Sources/DashportMPD/MPDConnection.swift - one connection to MPD on the server's reactor.

public import DashportClock
public import DashportLog
import DashportTransport
import Glibc
import Synchronization

/// One open connection to MPD: commands are written in call order and answered in that order
/// (MPD answers one command at a time, so several may be in flight: they are pipelined).
///
/// The socket is a ``TCPConnection`` on the server's reactor (``EventLoop/shared``), like every
/// other socket of Dashport: only the reactor thread reads and writes it, MPD's bytes are parsed
/// there by the sans-IO ``MPDResponseParser`` and each answer resumes the task that asked. No
/// thread of its own, no blocking call. Bad bytes from MPD close this connection and fail what
/// waits on it; nothing else is affected. ``MPDClient`` adds reconnection, the password and the
/// watchdog that closes a connection whose oldest command has waited too long.
public final class MPDConnection: Sendable {
    /// MPD's protocol version from the greeting.
    public let version: MPDVersion
    private let stream: TCPConnection
    private let shared: Shared
    private let clock: any DashportClock

    typealias Waiter = CheckedContinuation<Result<MPDResponse, MPDError>, Never>

    struct Pending {
        var what: String
        var since: ClockInstant
        var isIdle: Bool
        var waiter: Waiter
    }

    struct State {
        var parser: MPDResponseParser
        var pending: [Pending] = []
        var head = 0
        var closed: MPDError?
        var greeting: CheckedContinuation<Result<MPDVersion, MPDError>, Never>?
        var greetingSince: ClockInstant?
        var noidleSent = false
    }

    /// The state the reactor's handler and the callers share (a class: a `Mutex` cannot be copied).
    final class Shared: Sendable {
        let state: Mutex<State>
        init(_ state: State) { self.state = Mutex(state) }
    }

    private init(stream: TCPConnection, shared: Shared, version: MPDVersion, clock: any DashportClock) {
        self.stream = stream
        self.shared = shared
        self.version = version
        self.clock = clock
    }

    /// Connects and waits for MPD's greeting. Does not send a password (``MPDClient`` does).
    public static func open(
        _ address: MPDAddress, limits: MPDLimits = MPDLimits(), clock: any DashportClock, logger: Logger = .silent
    ) async throws(MPDError) -> MPDConnection {
        let stream: TCPConnection
        switch address {
        case .unix(let path):
            let expanded = path.hasPrefix("~/") ? (getenv("HOME").map { String(cString: $0) } ?? "~") + path.dropFirst(1) : path
            var info = stat()
            guard stat(expanded, &info) == 0 else { throw .unreachable(address, "\(expanded) does not exist") }
            do {
                stream = try UnixClient.connect(path: expanded)
            } catch {
                throw .unreachable(address, error.description)
            }
        case .tcp(let host):
            do {
                stream = try await TCPClient.connect(to: host, outboundBufferLimit: 1 << 20, logger: logger)
            } catch {
                throw .unreachable(address, error.description)
            }
        }
        let shared = Shared(State(parser: MPDResponseParser(limits: limits), greetingSince: clock.now))
        // Cancelling the task (``MPDClient``'s connect timeout) closes the stream, which ends the wait
        // for a greeting that never comes.
        let greeted: Result<MPDVersion, MPDError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                shared.state.withLock { $0.greeting = continuation }
                stream.start { event in
                    Self.handle(event, shared: shared, stream: stream, logger: logger.with("mpd", address.description))
                }
            }
        } onCancel: {
            stream.abort()
        }
        switch greeted {
        case .success(let version): return MPDConnection(stream: stream, shared: shared, version: version, clock: clock)
        case .failure(let error):
            stream.abort()
            throw error
        }
    }

    /// Runs one command and returns its answer; an `ACK` is thrown as ``MPDError/ack(_:)``.
    public func run(_ command: MPDCommand) async throws(MPDError) -> MPDResponse {
        let bytes: [UInt8]
        do throws(MPDProtocolError) { bytes = try command.encoded() } catch { throw .notSendable(error) }
        return try await send(bytes, what: command.name, isIdle: command.name == "idle")
    }

    /// Runs a command list (`command_list_ok_begin` … `command_list_end`) as one request.
    public func run(list commands: [MPDCommand]) async throws(MPDError) -> MPDResponse {
        let bytes: [UInt8]
        do throws(MPDProtocolError) { bytes = try MPDCommand.list(commands) } catch { throw .notSendable(error) }
        return try await send(bytes, what: "command list of \(commands.count)", isIdle: false)
    }

    /// Waits in `idle` for a change in `subsystems` (all when empty); returns the changed names.
    /// ``cancelIdle()`` ends it early (it then returns what changed meanwhile, often nothing).
    public func idle(_ subsystems: [String]) async throws(MPDError) -> [String] {
        try await run(MPDCommand("idle", arguments: subsystems)).values(of: "changed")
    }

    /// Sends `noidle` when the last command in flight is an `idle`; otherwise does nothing.
    public func cancelIdle() {
        let send = shared.state.withLock { state -> Bool in
            guard state.closed == nil, !state.noidleSent, let last = state.pending.last, state.pending.count > state.head,
                last.isIdle
            else { return false }
            state.noidleSent = true
            return true
        }
        if send { stream.write(MPDCommand.noidle) }
    }

    /// How long the oldest unanswered command (an `idle` does not count) has waited; nil when none.
    public func oldestWait(now: ClockInstant) -> Duration? {
        shared.state.withLock { state in
            guard state.head < state.pending.count, !state.pending[state.head].isIdle else { return nil }
            return now - state.pending[state.head].since
        }
    }

    /// Whether the connection is closed (by MPD, an error, or ``close(_:)``).
    public var isClosed: Bool { shared.state.withLock { $0.closed != nil } }

    /// Closes the connection; what waits on it fails with `reason`.
    public func close(_ reason: MPDError = .stopped) {
        let waiters = Self.fail(shared, with: reason)
        stream.abort()
        for waiter in waiters { waiter.resume(returning: .failure(reason)) }
    }

    private func send(_ bytes: [UInt8], what: String, isIdle: Bool) async throws(MPDError) -> MPDResponse {
        let now = clock.now
        let result: Result<MPDResponse, MPDError> = await withCheckedContinuation { waiter in
            let refused = shared.state.withLock { state -> MPDError? in
                if let closed = state.closed { return closed }
                state.pending.append(Pending(what: what, since: now, isIdle: isIdle, waiter: waiter))
                if isIdle { state.noidleSent = false }
                return nil
            }
            if let refused {
                waiter.resume(returning: .failure(refused))
            } else {
                stream.write(bytes)
            }
        }
        return try result.get()
    }

    /// On the reactor thread: parse, resume whoever each answer belongs to.
    private static func handle(_ event: TransportEvent, shared: Shared, stream: TCPConnection, logger: Logger) {
        switch event {
        case .received(let bytes):
            var greeting: (CheckedContinuation<Result<MPDVersion, MPDError>, Never>, MPDVersion)?
            var answered: [(Waiter, Result<MPDResponse, MPDError>)] = []
            var violation: MPDProtocolError?
            shared.state.withLock { state in
                let events: [MPDEvent]
                do throws(MPDProtocolError) { events = try state.parser.feed(bytes) } catch {
                    violation = error
                    return
                }
                for event in events {
                    switch event {
                    case .greeting(let version):
                        if let waiter = state.greeting { greeting = (waiter, version) }
                        state.greeting = nil
                    case .response, .ack:
                        guard state.head < state.pending.count else {
                            violation = .unexpectedAnswer
                            return
                        }
                        let pending = state.pending[state.head]
                        state.head += 1
                        if case .response(let response) = event {
                            answered.append((pending.waiter, .success(response)))
                        } else if case .ack(let ack) = event {
                            let error: MPDError = ack.known == .password || ack.known == .permission ? .password(ack) : .ack(ack)
                            answered.append((pending.waiter, .failure(error)))
                        }
                    }
                }
                if state.head == state.pending.count {
                    state.pending.removeAll(keepingCapacity: true)
                    state.head = 0
                }
            }
            if let (waiter, version) = greeting { waiter.resume(returning: .success(version)) }
            for (waiter, result) in answered { waiter.resume(returning: result) }
            if let violation {
                logger.warning("closing the connection to MPD: \(violation)")
                let error = MPDError.protocolViolation(violation)
                for waiter in fail(shared, with: error) { waiter.resume(returning: .failure(error)) }
                stream.abort()
            }
        case .closed(let error):
            let reason = MPDError.disconnected(error?.description ?? "MPD closed it")
            for waiter in fail(shared, with: reason) { waiter.resume(returning: .failure(reason)) }
        }
    }

    /// Marks the connection closed and hands back every waiter to fail (the greeting's too).
    private static func fail(_ shared: Shared, with error: MPDError) -> [Waiter] {
        let (waiters, greeting) = shared.state.withLock { state -> ([Waiter], CheckedContinuation<Result<MPDVersion, MPDError>, Never>?) in
            if state.closed == nil { state.closed = error }
            defer {
                state.pending = []
                state.head = 0
                state.greeting = nil
            }
            return (state.pending[state.head...].map(\.waiter), state.greeting)
        }
        greeting?.resume(returning: .failure(error))
        return waiters
    }
}
