public import DashportHeadUnit
public import DashportLink
public import DashportMessages

/// What a ``MediaChannelSession`` reports besides the answers it returns.
public enum MediaSessionNotice: Sendable, Hashable {
    /// A link event other than a message on a channel the session handles.
    case link(HeadUnitEvent)
    /// A push (or the hello) on the Dashport media channel; the session's state already has it.
    case update(MediaChannelUpdate)
    /// MEDIA_PLAYBACK_STATUS on the AAP playback status channel.
    case aapPlaybackStatus(AAP.MediaPlaybackStatus)
    /// MEDIA_PLAYBACK_METADATA on the AAP playback status channel.
    case aapPlaybackMetadata(AAP.MediaPlaybackMetadata)
    /// The phone asked for these keys on the input channel; the session answered success.
    case keyBindingRequested([Int32])
    /// A message that was not taken in (undecodable, an answer nobody waits for); the link goes on.
    case problem(String)
    /// The connection is over; always the last notice.
    case closed(HeadUnitDisconnect)
}

/// Why a ``MediaChannelSession`` call did not return its result.
public enum MediaSessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The car configuration lists no `dashport.media` service.
    case noMediaChannel
    /// The car configuration lists no input service (for media keys).
    case noInputChannel
    /// Nothing came within the time allowed; the text says what was awaited.
    case timedOut(String, Duration)
    /// The connection ended first.
    case closed(HeadUnitDisconnect)
    /// The link refused the message (channel not open, not running, too large).
    case send(LinkSendError)
    /// The request could not be built (too many in flight).
    case request(MediaChannelClientError)

    public var description: String {
        switch self {
        case .noMediaChannel: "the car lists no \(LinkConfiguration.dashportMediaServiceName) service"
        case .noInputChannel: "the car lists no input service"
        case .timedOut(let what, let limit): "no \(what) within \(limit.secondsText)"
        case .closed(let reason): "link closed: \(reason)"
        case .send(let error): "cannot send: \(error)"
        case .request(let error): "\(error)"
        }
    }
}

/// The Dashport media channel on a live ``HeadUnitClient``: sends requests and awaits their answers
/// (bounded by ``timeout`` on the client's ``HeadUnitClient/clock``), keeps the pushed state in a ``MediaChannelClient``, answers the phone's
/// KEY_BINDING_REQUEST and decodes AAP playback status and metadata. It consumes the client's
/// ``HeadUnitClient/events``; everything else it sees comes out on ``notices``.
public actor MediaChannelSession {
    public nonisolated let client: HeadUnitClient
    /// The Dashport media channel's id.
    public nonisolated let channel: UInt8
    /// The car's input channel and AAP playback status channel, if it lists them.
    public nonisolated let inputChannel: UInt8?
    public nonisolated let playbackStatusChannel: UInt8?
    /// Every wait for an answer, the hello or a channel is bounded by this.
    public nonisolated let timeout: Duration
    /// Link events, pushes and problems, in order; finishes after ``MediaSessionNotice/closed(_:)``.
    /// Buffered without a cap, like the client's events: consume it.
    public nonisolated let notices: AsyncStream<MediaSessionNotice>

    var media: MediaChannelClient
    let noticeSink: AsyncStream<MediaSessionNotice>.Continuation
    var answerWaiters: [UInt32: CheckedContinuation<Result<MediaChannelAnswer, MediaSessionError>, Never>] = [:]
    /// Answers that came before their requester was waiting (at most one per request in flight).
    var earlyAnswers: [UInt32: MediaChannelAnswer] = [:]
    var helloWaiters: [Int: CheckedContinuation<Result<DashportMedia.ServerHello, MediaSessionError>, Never>] = [:]
    var nextWaiterID = 0
    var channelOpen = false
    var disconnect: HeadUnitDisconnect?
    /// The client's clock when the link closed; nil while it is up.
    public internal(set) var closedAt: Duration?

    /// Starts consuming `client`'s events. Call once per client, right after it connected.
    public static func start(
        client: HeadUnitClient, timeout: Duration = .seconds(5), media: MediaChannelClient = MediaChannelClient()
    ) throws(MediaSessionError) -> MediaChannelSession {
        let configuration = client.configuration
        guard let channel = configuration.dashportMediaChannel else { throw .noMediaChannel }
        let session = MediaChannelSession(
            client: client, channel: channel,
            inputChannel: configuration.channel { if case .input = $0 { true } else { false } },
            playbackStatusChannel: configuration.channel { $0 == .mediaPlaybackStatus },
            timeout: timeout, media: media)
        Task { await session.run() }
        return session
    }

    /// A session for a car that lists only the stock AAP services (no Dashport media channel):
    /// media keys (``pressKey(_:)``) and the playback status pushes, nothing to browse. Channel 0
    /// stands for "no media channel": no service message ever arrives on it.
    public static func startStock(client: HeadUnitClient, timeout: Duration = .seconds(5)) -> MediaChannelSession {
        let configuration = client.configuration
        let session = MediaChannelSession(
            client: client, channel: 0,
            inputChannel: configuration.channel { if case .input = $0 { true } else { false } },
            playbackStatusChannel: configuration.channel { $0 == .mediaPlaybackStatus },
            timeout: timeout, media: MediaChannelClient())
        Task { await session.run() }
        return session
    }

    private init(
        client: HeadUnitClient, channel: UInt8, inputChannel: UInt8?, playbackStatusChannel: UInt8?,
        timeout: Duration, media: MediaChannelClient
    ) {
        self.client = client
        self.channel = channel
        self.inputChannel = inputChannel
        self.playbackStatusChannel = playbackStatusChannel
        self.timeout = timeout
        self.media = media
        let notices = AsyncStream.makeStream(of: MediaSessionNotice.self, bufferingPolicy: .unbounded)
        self.notices = notices.stream
        self.noticeSink = notices.continuation
    }

    /// Why the link ended, once it has.
    public var disconnectReason: HeadUnitDisconnect? { disconnect }

    /// The media channel state: hello, latest pushes, requests in flight.
    public var state: MediaChannelClient { media }

    /// The server's hello, waiting for it (it follows the channel open) if it has not come yet,
    /// at most `limit` (default ``timeout``).
    public func hello(within limit: Duration? = nil) async throws(MediaSessionError) -> DashportMedia.ServerHello {
        if let hello = media.serverHello { return hello }
        if let disconnect { throw .closed(disconnect) }
        let id = nextWaiterID
        nextWaiterID += 1
        let expiry = Task { [weak self, timeout, clock = client.clock] in
            try? await clock.sleep(for: limit ?? timeout)
            await self?.expireHello(id, after: limit ?? timeout)
        }
        defer { expiry.cancel() }
        return try await withCheckedContinuation { helloWaiters[id] = $0 }.get()
    }

    /// Sends one request and waits for its answer. A request unanswered within `limit` (default
    /// ``timeout``) is cancelled in the client (a late answer becomes a ``MediaSessionNotice/problem(_:)``).
    public func request(_ kind: MediaChannelRequestKind, within limit: Duration? = nil) async throws(MediaSessionError)
        -> MediaChannelAnswer
    {
        if let disconnect { throw .closed(disconnect) }
        let request: MediaChannelRequest
        do {
            request = try media.makeRequest(kind)
        } catch {
            throw .request(error)
        }
        do {
            try await client.send(channel: channel, messageId: request.messageId, body: request.body)
        } catch {
            media.cancel(requestId: request.requestId)
            throw .send(error)
        }
        let requestId = request.requestId
        // The answer may have been taken in while this actor waited for the send to return.
        if let early = earlyAnswers.removeValue(forKey: requestId) { return early }
        if let disconnect { throw .closed(disconnect) }
        let expiry = Task { [weak self, timeout, clock = client.clock] in
            try? await clock.sleep(for: limit ?? timeout)
            await self?.expireRequest(requestId, after: limit ?? timeout)
        }
        defer { expiry.cancel() }
        return try await withCheckedContinuation { answerWaiters[requestId] = $0 }.get()
    }

    /// Presses and releases one key (an Android keycode: 85 play/pause, 87 next, ...) on the input
    /// channel, as INPUT_REPORTs with the link clock in microseconds as timestamp.
    public func pressKey(_ keycode: UInt32) async throws(MediaSessionError) {
        guard let inputChannel else { throw .noInputChannel }
        for down in [true, false] {
            let stamp = UInt64(clamping: client.now().wholeMicroseconds)
            let report = AAP.InputReport(
                timestamp: stamp, keyEvent: AAP.KeyEvent(keys: [AAP.KeyEvent.Key(keycode: keycode, down: down, metastate: 0)]))
            do {
                try await client.send(
                    channel: inputChannel, messageId: UInt16(AAP.InputMessageId.inputReport.rawValue), body: report.serializedBytes())
            } catch {
                throw .send(error)
            }
        }
    }
}
