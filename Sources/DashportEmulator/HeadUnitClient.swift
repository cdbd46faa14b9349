public import DashportClock
public import DashportHeadUnit
public import DashportLink
public import DashportLog
public import DashportMessages
public import DashportTLS
public import DashportTransport
import DashportThread

/// An emulated head unit on a real connection: drives a ``HeadUnitLink`` over a ``ByteStream``
/// (TCP via ``connect(to:configuration:identity:timeout:logger:clock:tap:audioOutput:)``) with a real TLS client
/// session, ticking the link at its deadlines on a ``DashportClock`` (``SystemClock`` unless a test
/// passes its `ManualClock`; every wait of the emulator built on this client reads the same clock).
///
/// Everything the link reports arrives on ``events`` (one consumer), ending with
/// ``HeadUnitClientEvent/closed(_:)``. Bytes read from the stream are queued without a cap (the
/// transport has no back-pressure); this is a tool and test driver, not a server.
public actor HeadUnitClient {
    /// What happened, in order; finishes after ``HeadUnitClientEvent/closed(_:)``.
    public nonisolated let events: AsyncStream<HeadUnitClientEvent>
    /// The phone's address, for messages.
    public nonisolated let peerDescription: String
    /// The configuration the link runs with (its car description names the channels).
    public nonisolated let configuration: HeadUnitConfiguration

    /// The clock the link's deadlines, ``closed(within:)`` and the sessions and shells on this client
    /// wait on. The link's `now` is the time since the clock's origin.
    public nonisolated let clock: any DashportClock

    let link: HeadUnitLink
    let stream: any ByteStream
    let logger: Logger
    let eventSink: AsyncStream<HeadUnitClientEvent>.Continuation
    let inputs: AsyncStream<Input>
    let inputSink: AsyncStream<Input>.Continuation
    var timer: Task<Void, Never>?
    var timerDeadline: Duration?
    /// Set when the link or our own `close` ended the session; reported once the stream is closed.
    var pendingDisconnect: HeadUnitDisconnect?
    var disconnect: HeadUnitDisconnect?
    var closeWaiters: [Int: CheckedContinuation<HeadUnitDisconnect?, Never>] = [:]
    var nextWaiterID = 0

    enum Input: Sendable {
        case transport(TransportEvent)
        case tick
    }

    /// Connects to a phone (a Dashport server) and starts the link: VERSION_REQUEST goes out at once.
    ///
    /// - Parameters:
    ///   - identity: the client certificate to present; `nil` generates a fresh RSA identity.
    ///   - tap: sees every message in and out (session recordings; see ``SessionRecorder``).
    ///   - timeout: bounds the TCP connect. Setup itself is bounded by
    ///     ``HeadUnitConfiguration/handshakeDeadline`` and reported on ``events``.
    ///   - clock: the time the link, the connect timeout and every later wait run on.
    ///   - audioOutput: gets the decoded PCM the car hears; see ``start(on:configuration:context:logger:clock:tap:audioOutput:)``.
    public static func connect(
        to address: ListenAddress,
        configuration: HeadUnitConfiguration = HeadUnitConfiguration(),
        identity: TLSIdentity? = nil,
        timeout: Duration = .seconds(10),
        logger: Logger = .silent,
        clock: any DashportClock = SystemClock(),
        tap: (@Sendable (TappedMessage) -> Void)? = nil,
        audioOutput: (@Sendable ([Int16]) -> Void)? = nil
    ) async throws(HeadUnitClientError) -> HeadUnitClient {
        let context = try makeContext(identity: try await presentedIdentity(identity))
        let connection: TCPConnection
        do {
            connection = try await withTimeout(timeout, clock: clock) { try await TCPClient.connect(to: address, logger: logger) }
        } catch let error as TransportError {
            throw .connect(error)
        } catch {
            throw .timedOut("a TCP connection to \(address)", timeout)
        }
        return try await start(
            on: connection, configuration: configuration, context: context, logger: logger, clock: clock, tap: tap,
            audioOutput: audioOutput)
    }

    /// Runs the link on a stream that is already connected and not yet started (a TCP connection
    /// made elsewhere, later a USB transport). VERSION_REQUEST goes out at once.
    ///
    /// `audioOutput` gets the decoded PCM of every DATA the car's media audio sink hears (see
    /// ``HeadUnitLink/audioOutput``), on the client's executor: queue it, do not block.
    public static func start(
        on stream: any ByteStream,
        configuration: HeadUnitConfiguration = HeadUnitConfiguration(),
        context: TLSContext,
        logger: Logger = .silent,
        clock: any DashportClock = SystemClock(),
        tap: (@Sendable (TappedMessage) -> Void)? = nil,
        audioOutput: (@Sendable ([Int16]) -> Void)? = nil
    ) async throws(HeadUnitClientError) -> HeadUnitClient {
        let client: HeadUnitClient
        do {
            client = try HeadUnitClient(
                stream: stream, configuration: configuration, context: context, logger: logger, clock: clock, tap: tap,
                audioOutput: audioOutput)
        } catch {
            stream.abort()
            throw .tls(error)
        }
        await client.begin()
        return client
    }

    /// `identity`, or a fresh RSA identity generated on a thread of its own: a key generation takes
    /// from a tenth of a second to several on a loaded machine, and must not hold one of the
    /// cooperative pool's few threads (every other car and timer of the process waits on them).
    public static func presentedIdentity(_ identity: TLSIdentity?) async throws(HeadUnitClientError) -> TLSIdentity {
        if let identity { return identity }
        do throws(TLSError) {
            return try await OSThread.run(name: "car-identity") { () throws(TLSError) in
                try TLSIdentity.generate(commonName: "dashport-hu")
            }
        } catch {
            throw .tls(error)
        }
    }

    /// A TLS client context presenting `identity`, or a freshly generated one.
    public static func makeContext(identity: TLSIdentity? = nil) throws(HeadUnitClientError) -> TLSContext {
        do throws(TLSError) {
            let presented: TLSIdentity
            if let identity {
                presented = identity
            } else {
                presented = try TLSIdentity.generate(commonName: "dashport-hu")
            }
            return try TLSContext(.client(identity: presented))
        } catch {
            throw .tls(error)
        }
    }

    private init(
        stream: any ByteStream, configuration: HeadUnitConfiguration, context: TLSContext, logger: Logger,
        clock: any DashportClock, tap: (@Sendable (TappedMessage) -> Void)?, audioOutput: (@Sendable ([Int16]) -> Void)?
    ) throws(TLSError) {
        let logger = logger.with("peer", stream.peerDescription)
        self.link = HeadUnitLink(configuration: configuration, tls: try TLSSession(context: context, logger: logger), logger: logger)
        if let tap { self.link.tap = tap }
        if let audioOutput { self.link.audioOutput = audioOutput }
        self.stream = stream
        self.logger = logger
        self.configuration = configuration
        self.peerDescription = stream.peerDescription
        self.clock = clock
        let events = AsyncStream.makeStream(of: HeadUnitClientEvent.self, bufferingPolicy: .unbounded)
        self.events = events.stream
        self.eventSink = events.continuation
        let inputs = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .unbounded)
        self.inputs = inputs.stream
        self.inputSink = inputs.continuation
    }

    /// The link's time: how long after ``clock``'s origin it is now.
    public nonisolated func now() -> Duration { clock.now.sinceOrigin }

    /// Where the link is: setup phases, running, closing, closed.
    public var phase: LinkPhase { link.phase }
    /// The version the phone answered, once it did.
    public var version: AAPVersion? { link.version }
    /// The channels we answered with success.
    public var openChannels: Set<UInt8> { link.openChannels }

    /// Sends a service message on a channel the phone opened, encrypted and fragmented.
    public func send(channel: UInt8, messageId: UInt16, body: [UInt8]) throws(LinkSendError) {
        perform(try link.send(channel: channel, messageId: messageId, body: body))
    }

    /// Starts an orderly end: BYEBYE_REQUEST, then the link closes on the answer or after
    /// ``HeadUnitConfiguration/byeByeGrace``. The outcome arrives on ``events``; see also ``closed(within:)``.
    public func byeBye(reason: AAP.ByeByeRequest.Reason = .userSelection) {
        perform(link.sayByeBye(reason: reason, now: now()))
    }

    /// Closes the connection now (queued bytes are still written), without a bye-bye.
    public func close() {
        guard disconnect == nil, pendingDisconnect == nil else { return }
        pendingDisconnect = .closedLocally
        stream.close()
    }

    /// Resets the connection now, dropping whatever is queued: a car that vanished (the soak tool
    /// and fault tests use it). Reported like ``close()``.
    public func abort() {
        guard disconnect == nil, pendingDisconnect == nil else { return }
        pendingDisconnect = .closedLocally
        stream.abort()
    }

    /// Waits until the connection is over and says why; `nil` if it is still up after `timeout`.
    public func closed(within timeout: Duration) async -> HeadUnitDisconnect? {
        if let disconnect { return disconnect }
        let id = nextWaiterID
        nextWaiterID += 1
        let expiry = Task { [weak self, clock] in
            try? await clock.sleep(for: timeout)
            await self?.resumeCloseWaiter(id, with: nil)
        }
        defer { expiry.cancel() }
        // Stored before this actor can run anything else, so the expiry always finds it.
        return await withCheckedContinuation { closeWaiters[id] = $0 }
    }
}
