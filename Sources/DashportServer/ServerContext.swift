import DashportLink
import DashportLog
import DashportTLS

/// What every car connection shares: the TLS context, the link settings, the core (and its clock)
/// and the log.
struct ServerContext: Sendable {
    let tls: TLSContext
    let link: LinkConfiguration
    let core: ServerCore
    let logger: Logger
    let registry: ConnectionRegistry
    /// Pending (still in the handshake) versus linked connections; see ``HandshakeAdmission``.
    let admission: HandshakeAdmission
    /// Every car's next wake-up, on the core's clock.
    let deadlines: DeadlineScheduler
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
