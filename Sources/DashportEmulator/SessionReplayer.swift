public import DashportClock
import DashportHeadUnit
import DashportLink
public import DashportLog
import DashportMessages
public import DashportRecording
public import DashportTLS
public import DashportTransport

/// Plays the car side of a ``SessionRecording`` against a server and compares every server
/// message with the recorded one.
///
/// How server messages are matched (so a replay never depends on machine speed):
/// - each recorded server message belongs to a stream: its car, channel and message id. Within a
///   stream, the n-th replayed message is compared with the n-th recorded one; streams may
///   interleave in any order, as pushes and answers race on a loaded machine;
/// - before the replayer sends a car message, every server message recorded before it must have
///   arrived (however long that takes, up to ``timeout``): that is what the car had seen when it
///   acted, so what it sends next means the same;
/// - messages the recording's header declares skipped (pings) are not matched; volatile fields
///   are compared for presence only (``VolatileFields``);
/// - a server message for which its stream has nothing left recorded is a failure ("unexpected").
///
/// The car's own link does the handshake with a fresh client certificate (keys are never
/// recorded) and describes itself with the recorded SERVICE_DISCOVERY_RESPONSE, so the server
/// sees the same car, channels and profile.
public struct SessionReplayer: Sendable {
    /// Opens a new connection to the server for a car of the session (TCP, or an in-memory pair).
    public typealias Connect = @Sendable (_ car: Int) async throws -> any ByteStream

    public let recording: SessionRecording
    public let connect: Connect
    /// How long to wait for any one recorded server message.
    public let timeout: Duration
    public let logger: Logger
    /// The client certificate every car presents; `nil` generates one per car.
    public let identity: TLSIdentity?
    /// What ``timeout`` and every car's link run on.
    public let clock: any DashportClock

    public init(
        recording: SessionRecording, timeout: Duration = .seconds(30), logger: Logger = .silent,
        identity: TLSIdentity? = nil, clock: any DashportClock = SystemClock(), connect: @escaping Connect
    ) {
        self.identity = identity
        self.clock = clock
        self.recording = recording
        self.connect = connect
        self.timeout = timeout
        self.logger = logger
    }

    /// Replays the whole recording; never throws: every problem is in the report.
    public func run() async -> ReplayReport {
        var run = ReplayRun(recording: recording, timeout: timeout, logger: logger, identity: identity, clock: clock, connect: connect)
        await run.play()
        return run.report
    }
}

/// What a replay found.
public struct ReplayReport: Sendable, CustomStringConvertible {
    public var failures: [ReplayFailure] = []
    /// Server messages compared (equal or not).
    public var compared = 0
    /// What the failures probably mean, for people (``SessionReplayer/freshServerHint``).
    public var hints: [String] = []
    public var passed: Bool { failures.isEmpty }

    public var description: String {
        if passed { return "replay passed: \(compared) server messages matched" }
        return
            (["replay FAILED: \(failures.count) problem(s), \(compared) server messages compared"]
            + failures.map(\.description) + hints.map { "hint: \($0)" }).joined(separator: "\n")
    }
}

extension SessionReplayer {
    /// The server messages that carry the session (what plays, where, the queue, the timer): a
    /// recording starts from a server with no session, and one that has played since differs here.
    public static let sessionStateMessages: Set<String> = [
        "status", "playbackState", "metadata", "mediaItemState", "queueState", "sleepTimerState",
    ]

    /// Said (logged at once, and under the report) on the first difference in session state,
    /// where the replay stops.
    public static let freshServerHint =
        "the server's session state differs from the recording's, so the replay stopped there: a replay expects a fresh "
        + "server, one whose state directory holds no session yet. Start one with `dashport serve --state-dir \"$(mktemp -d)\" --listen 127.0.0.1:5277`, "
        + "or let the replay start its own: `dashport-hu replay --serve FILE`"
}

/// One problem: where in the recording, and what differed.
public struct ReplayFailure: Sendable, Hashable, CustomStringConvertible {
    /// The recorded message it concerns ("line 14, car 1, server → car ...").
    public var step: String
    public var problem: String
    public var differences: [FieldDifference]

    public var description: String {
        (["- \(step): \(problem)"] + differences.map { "    \($0)" }).joined(separator: "\n")
    }
}
