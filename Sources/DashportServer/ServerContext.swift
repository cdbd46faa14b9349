import DashportLink
import DashportLog
import DashportTLS
import DashportTransport

/// What every car connection shares: the TLS context, the link settings, the core (and its clock)
/// and the log; and what the cars on one reactor share (``ReactorLane``): a car's copy names its
/// reactor (``reactor``).
struct ServerContext: Sendable {
    let tls: TLSContext
    let link: LinkConfiguration
    let core: ServerCore
    let logger: Logger
    let registry: ConnectionRegistry
    /// Pending (still in the handshake) versus linked connections; see ``HandshakeAdmission``.
    let admission: HandshakeAdmission
    /// One per reactor the cars are spread over, in the listener's order; at least one.
    let lanes: [ReactorLane]
    /// The reactor of the car this copy serves (``serving(_:)``), as an index into ``lanes``; nil
    /// for the server's own copy and for a car on no reactor (USB, in memory), which use lane 0.
    private(set) var reactor: Int?
    /// `--record-dir`: where each car's session recording goes; `nil` records nothing.
    var recordDirectory: String? = nil
    /// What all cars together may hold in unfinished messages.
    var reassembly = ReassemblyBudget()
    /// How long a car may leave more than the outbound high-water mark unread before it is closed.
    var writeStallLimit: Duration = .seconds(15)
    /// Messages a linked car may send per second before its reading is paused (see ``MessageRateBudget``).
    var messageRate = MessageRateBudget.Limits()
    /// How many close warnings one address gets logged (see ``RepeatedCloseLog``).
    var closeLog = RepeatedCloseLog()
    /// The session's audio, fanned out to the cars' media audio sinks; nil when the session makes
    /// no sound or `--no-audio` is set.
    var audio: AudioFanout? = nil
}

extension ServerContext {
    /// This context for the car on `stream`: its lane is the reactor that owns the stream's socket
    /// (the one its worker runs on), or reactor 0's for a stream on no reactor of this server
    /// (USB, in memory).
    func serving(_ stream: any ByteStream) -> ServerContext {
        var copy = self
        if let loop = stream.preferredExecutor as? EventLoop, let index = lanes.firstIndex(where: { $0.loop === loop }) {
            copy.reactor = index
        }
        return copy
    }

    private var lane: Int { reactor ?? 0 }

    /// The car's timer wheel: the wake-ups of every car on its reactor, on the core's clock.
    var deadlines: DeadlineScheduler { lanes[lane].deadlines }

    /// The car's shard of memoised answers (its reactor's).
    var answers: AnswerMemo { core.answers.shard(lane) }
}

/// What the cars on one reactor share apart from the core (issue 22, item 1): the timer wheel
/// their workers' deadlines are on (one clock timer per reactor, on the server's one clock, and a
/// lock no other reactor's cars take) and, through its index, their shard of memoised answers.
struct ReactorLane: Sendable {
    let loop: EventLoop
    let deadlines: DeadlineScheduler
}
