import DashportClock
import DashportFiles
import Foundation
import DashportArtwork
import DashportBrowse
import DashportLink
import DashportLog
import DashportTLS
import DashportTransport

/// A running Dashport server: a TCP listener whose every connection runs a ``CarConnection``
/// against one shared ``ServerCore``.
public final class DashportServer: Sendable {
    /// The address actually bound (with the real port when port 0 was asked for).
    public let address: ListenAddress
    /// SHA-256 of the server certificate the cars see.
    public let certificateFingerprint: String
    public let core: ServerCore
    private let listener: TCPListener
    let context: ServerContext

    /// Binds and starts accepting cars. Throws a clear error when the configuration is refused,
    /// the catalog is invalid, the identity cannot be loaded or the address cannot be bound.
    public static func start(
        configuration: ServerConfiguration, logger: Logger,
        provider: (any BrowseProvider)? = nil, artworkFetcher: (any ArtworkFetcher)? = nil,
        clock: any DashportClock = SystemClock()
    ) async throws -> DashportServer {
        try configuration.validate()
        let address: ListenAddress
        do {
            address = try ListenAddress.parse(configuration.listen)
        } catch {
            throw ConfigurationError("--listen \(configuration.listen): \(error)")
        }
        let identity = try TLSIdentity.loadOrCreate(stateDirectory: configuration.stateDirectory, logger: logger.labelled("tls"))
        let tls = try TLSContext(.server(identity: identity, peerPolicy: try peerPolicy(configuration)))
        let core = try await ServerCore.make(
            configuration: configuration, logger: logger, provider: provider, artworkFetcher: artworkFetcher, clock: clock)
        let link = LinkConfiguration(
            labelText: configuration.label,
            deviceName: configuration.deviceName,
            handshakeDeadline: .milliseconds(Int64(configuration.handshakeTimeoutSeconds * 1000)),
            idleDeadline: configuration.idleTimeoutSeconds > 0
                ? .milliseconds(Int64(configuration.idleTimeoutSeconds * 1000)) : nil)
        let listener = try TCPListener.bind(address, maxConnections: configuration.maxConnections, logger: logger.labelled("tcp"))
        let context = ServerContext(
            tls: tls, link: link, core: core, logger: logger.labelled("car"), registry: ConnectionRegistry(),
            writeStallLimit: .milliseconds(Int64(configuration.writeStallTimeoutSeconds * 1000)))
        let server = DashportServer(
            address: listener.boundAddress, fingerprint: identity.fingerprintSHA256, core: core,
            listener: listener, context: context)
        listener.start { connection in
            Task.detached { await CarConnection(stream: connection, context: context).run() }
        }
        logger.notice("listening", [
            "address": "\(listener.boundAddress)", "catalog": core.catalogPath,
            "certificate": identity.fingerprintSHA256,
        ])
        return server
    }

    private init(address: ListenAddress, fingerprint: String, core: ServerCore, listener: TCPListener, context: ServerContext) {
        self.address = address
        self.certificateFingerprint = fingerprint
        self.core = core
        self.listener = listener
        self.context = context
    }

    /// How many cars are connected now.
    public var connectionCount: Int { context.registry.count }

    /// Bytes received from cars and not yet taken by their connections (bounded per car by
    /// ``CarMailbox``); for tests and benchmarks.
    public var queuedInboundBytes: Int { context.registry.queuedInboundBytes }

    /// How many cars the server has paused reading from right now (inbound back-pressure).
    public var readingPausedCount: Int { context.registry.readingPausedCount }

    /// Bytes queued for all cars together and not yet sent (bounded by the listener's
    /// ``OutboundBudget``); for tests and benchmarks.
    public var queuedOutboundBytes: Int { listener.outboundBudget.queuedBytes }

    /// Stops accepting, says BYEBYE to every connected car and waits (up to `grace`) for them to
    /// go; then saves the session.
    public func stop(grace: Duration = .seconds(3)) async {
        listener.shutdown()
        let cars = context.registry.count
        if cars > 0 { context.logger.notice("saying bye-bye to \(cars) car(s)") }
        let left = await context.registry.shutdownAll(grace: grace)
        if left > 0 { context.logger.warning("\(left) car(s) did not leave within \(grace)") }
        core.stop()
        await core.session.close()
    }

    /// Largest CA file read (a system bundle is about 200 KiB).
    static let maximumCAFileSize = 4 << 20

    /// The head units this server accepts. The CA file is read here and handed to the TLS layer as
    /// bytes (a file that cannot be read, or is not a regular file, is a clear error naming it; a
    /// symbolic link is followed, as in /etc/ssl/certs).
    static func peerPolicy(_ configuration: ServerConfiguration) throws(TLSError) -> PeerPolicy {
        if let ca = configuration.caFile {
            do {
                return .certificateAuthority(pem: try Files.read(ca, limit: maximumCAFileSize, followingLinks: true), source: ca)
            } catch {
                throw .configuration("cannot load CA file \(ca): \(error)")
            }
        }
        let pins = configuration.allowedFingerprints.compactMap(ServerConfiguration.normalizedFingerprint)
        return pins.isEmpty ? .acceptAny : .pinnedSHA256(Set(pins))
    }
}
