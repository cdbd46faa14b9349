public import DashportLog
public import DashportTransport
import Synchronization

/// How an ``HTTPServer`` listens and what it allows each client.
public struct HTTPServerConfiguration: Sendable {
    public var listen: ListenAddress
    /// Listening on an address other machines can reach needs this: the pages served here drive a
    /// car session and have no login.
    public var allowNonLoopback: Bool
    /// Clients connected at once; one more is accepted and closed at once.
    public var maxConnections: Int
    public var limits: HTTPLimits
    /// Chunks read from a client and not yet parsed before its socket is no longer read.
    public var maxQueuedChunks: Int
    /// An answer waits until less than this is queued for its client (bytes).
    public var outboundHighWater: Int
    /// More queued for one client closes it (bytes).
    public var outboundLimit: Int
    /// A client that sends no whole request for this long (between requests on a kept-alive
    /// connection, or in the middle of a head or body) is closed, so idle or trickling clients do
    /// not keep the connection slots. Streams and requests being answered are not timed.
    public var idleTimeout: Duration

    public init(
        listen: ListenAddress, allowNonLoopback: Bool = false, maxConnections: Int = 32, limits: HTTPLimits = HTTPLimits(),
        maxQueuedChunks: Int = 4, outboundHighWater: Int = 256 * 1024, outboundLimit: Int = 4 * 1024 * 1024,
        idleTimeout: Duration = .seconds(60)
    ) {
        self.idleTimeout = idleTimeout
        self.listen = listen
        self.allowNonLoopback = allowNonLoopback
        self.maxConnections = maxConnections
        self.limits = limits
        self.maxQueuedChunks = maxQueuedChunks
        self.outboundHighWater = outboundHighWater
        self.outboundLimit = outboundLimit
    }
}

/// Why an ``HTTPServer`` did not start.
public enum HTTPServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The address is not loopback and ``HTTPServerConfiguration/allowNonLoopback`` is false.
    case notLoopback(ListenAddress)
    case transport(TransportError)

    public var description: String {
        switch self {
        case .notLoopback(let address):
            "refusing to listen on \(address): not a loopback address (127.0.0.0/8 or ::1), and the page drives the car session without a login; allow other addresses explicitly to serve other machines"
        case .transport(let error): "\(error)"
        }
    }
}

/// What a handler answers a request with.
public enum HTTPReply: Sendable {
    /// A whole response; the connection then reads the next request (or closes, as asked).
    case response(HTTPResponse)
    /// An open-ended body (server-sent events, a PCM stream): `head` is written, then `start` gets
    /// the stream, which owns the connection until one side closes it. Requests pipelined after it
    /// are not read.
    case stream(head: [UInt8], start: @Sendable (HTTPStream) -> Void)
}

/// Answers one request. Runs on the connection's task, one request at a time per connection, in order.
public typealias HTTPHandler = @Sendable (HTTPRequest) async -> HTTPReply

/// A small HTTP/1.1 server on the transport's reactor: a `TCPListener`, and for each client one
/// task (preferring the reactor as its executor) that parses with ``HTTPRequestParser``, asks the
/// handler, and writes the answers in order. Only the reactor touches sockets. Reading pauses while
/// a client's bytes wait to be parsed; an answer waits while its client's queue is over the
/// high-water mark; a client that stops reading is closed at ``HTTPServerConfiguration/outboundLimit``.
///
/// On loopback, a request must name this server in its `Host` (a page of another site whose name
/// resolves to 127.0.0.1 is refused: DNS rebinding), and a request with an `Origin` must come from
/// this server's own pages (403 otherwise).
public final class HTTPServer: Sendable {
    public let configuration: HTTPServerConfiguration
    /// The address bound: the real port when port 0 was asked for.
    public let address: ListenAddress
    let listener: TCPListener
    let handler: HTTPHandler
    let logger: Logger
    let streams = Mutex<[ObjectIdentifier: HTTPStream]>([:])
    /// Every client, for the idle sweep; nil once the server shut down.
    let clients = Mutex<[ObjectIdentifier: Client]?>([:])
    let loop: EventLoop

    public static func start(
        _ configuration: HTTPServerConfiguration, logger: Logger, loop: EventLoop = .shared, handler: @escaping HTTPHandler
    ) throws(HTTPServerError) -> HTTPServer {
        guard configuration.listen.isLoopback || configuration.allowNonLoopback else { throw .notLoopback(configuration.listen) }
        let listener: TCPListener
        do {
            listener = try TCPListener.bind(
                configuration.listen, backlog: 64, maxConnections: configuration.maxConnections,
                outboundBufferLimit: configuration.outboundLimit, keepAlive: nil, logger: logger.labelled("http"), loop: loop)
        } catch {
            throw .transport(error)
        }
        let server = HTTPServer(
            configuration: configuration, listener: listener, handler: handler, logger: logger.labelled("http"), loop: loop)
        listener.start { [server] connection in server.accept(connection, loop: loop) }
        server.scheduleSweep()
        return server
    }

    private init(
        configuration: HTTPServerConfiguration, listener: TCPListener, handler: @escaping HTTPHandler, logger: Logger, loop: EventLoop
    ) {
        self.loop = loop
        self.configuration = configuration
        self.address = listener.boundAddress
        self.listener = listener
        self.handler = handler
        self.logger = logger.with("listen", listener.boundAddress.description)
    }

    /// `http://127.0.0.1:8080/`.
    public var url: String { "http://\(address)/" }

    /// Clients connected now.
    public var connectionCount: Int { listener.connectionCount }

    /// Stops accepting and closes every client (what is queued for it is sent first).
    public func shutdown() {
        listener.shutdown()
        let open = clients.withLock { clients in
            defer { clients = nil }
            return clients.map { Array($0.values) } ?? []
        }
        for client in open { client.connection.close() }
        for stream in streams.withLock({ Array($0.values) }) { stream.close() }
    }

    /// The `Host` values a loopback server answers to.
    func acceptsHost(_ host: String?) -> Bool {
        guard !configuration.allowNonLoopback else { return true }
        guard let host else { return true }  // HTTP/1.0 without a Host
        let port = String(address.port)
        return ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)", address.description].contains(host.lowercased())
    }

    /// A request's `Origin`, when it has one, must be this server's.
    func acceptsOrigin(_ origin: String?) -> Bool {
        guard let origin, !configuration.allowNonLoopback else { return true }
        return acceptsHost(origin.lowercased().hasPrefix("http://") ? String(origin.dropFirst(7)) : "")
    }
}
