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
    /// How long a car may leave more than the outbound high-water mark unread before it is closed.
    var writeStallLimit: Duration = .seconds(15)
}
