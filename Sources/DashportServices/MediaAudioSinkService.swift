import DashportLog
public import DashportMessages
import DashportSession

/// The media audio sink of one car (a MediaSinkService with `audio_type` MEDIA that takes PCM):
/// audio focus on the control channel, SETUP / CONFIG / START / DATA / ACK / STOP on the sink's
/// channel, as aap-audio.md §A.0 describes what real phones do.
///
/// Sans-IO: the connection driver creates one per car once the sink's channel opens and sends
/// what ``open(now:)`` returns; it feeds the car's messages on the sink channel to
/// ``receive(messageId:body:now:)`` and AUDIO_FOCUS_NOTIFICATIONs (control channel, id 19) to
/// ``focusNotification(body:now:)``; it tells the service when the session starts or stops
/// playing (``playbackChanged(playing:now:)``, ``playbackEnded(now:)``), offers the audio pump's
/// packets with ``send(packet:now:)`` while ``canSend``, and calls ``tick(now:)`` at
/// ``nextDeadline``. Nothing from the car makes it throw or trap: malformed bodies are logged and
/// ignored.
///
/// Focus: RELEASE once at open (the car answers LOSS, which is expected and pauses nothing); GAIN
/// is asked for once when the session plays without focus, and a GAIN that arrives unasked (ohu
/// sends one after SETUP) counts as focus held. Audio never streams without focus. A LOSS or
/// LOSS_TRANSIENT stops the stream and asks the driver to pause the session (``Action/pauseSession``);
/// the next GAIN starts a new stream and asks it to resume (``Action/resumeSession``).
/// LOSS_TRANSIENT_CAN_DUCK keeps playing at ``Configuration/duckGain`` until a GAIN.
///
/// Streams: START carries `session_id` 0 for the first START on the channel and +1 for each later
/// one, and the index of 48000/16/2 in the sink's `audio_configs`. A pause is a STOP (focus is
/// kept); a resume is a new START. DATA goes only between START and STOP, at most
/// `max_unacked` unacknowledged (CONFIG; 0 or absent means 1), each ACK crediting
/// `min(ack, outstanding)`. The window is dropped (ackless) when the car's protocol is 5.0 or later,
/// or when no ACK arrives within ``Configuration/ackTimeout`` of a stream's first packet.
/// The service does not pace: the driver's pump sends at real time, ``Configuration/maxLead``
/// packets ahead at most.
public struct MediaAudioSinkService: Sendable, Equatable {
    /// Settings for one car's media audio sink.
    public struct Configuration: Sendable, Hashable {
        /// A stream whose first packet got no ACK within this goes on without ACKs (aap-audio.md
        /// §A.5: some HUs never ACK audio). Default 2 s (headunit ACKs after up to ~1 s, §A.3#5).
        public var ackTimeout: Duration
        /// How many packets the driver's pump may run ahead of real time (its prefill at a START);
        /// real phones keep about one (§A.2#3). The service itself does not pace. Default 2.
        public var maxLead: Int
        /// The gain applied to the samples while the car says LOSS_TRANSIENT_CAN_DUCK, clamped to
        /// 0…1. Default 0.3 (about −10 dB).
        public var duckGain: Double

        public init(ackTimeout: Duration = .seconds(2), maxLead: Int = 2, duckGain: Double = 0.3) {
            self.ackTimeout = ackTimeout
            self.maxLead = maxLead
            self.duckGain = duckGain
        }
    }

    /// What the driver must do, in order.
    public enum Action: Sendable, Hashable {
        /// Send this message to the car: on the sink's channel, or an AUDIO_FOCUS_REQUEST on channel 0.
        case send(OutgoingMessage)
        /// The car took audio focus away: pause the session (the service remembers it did).
        case pauseSession
        /// The car gave focus back after a ``pauseSession``: resume the session where it stopped.
        case resumeSession
        /// Log this line (with the driver's peer and channel metadata).
        case log(AAPServiceLog)
    }

    /// Where the sink channel is (aap-audio.md §A.5: SetupSent → Ready → Started(n) → Stopped …).
    public enum State: String, Sendable, Hashable, CustomStringConvertible {
        /// ``open(now:)`` not called yet.
        case closed
        /// SETUP sent; no CONFIG READY yet.
        case awaitingConfig
        /// CONFIG READY, no stream (never started, or stopped).
        case ready
        /// Between a START and its STOP: DATA may go.
        case started

        public var description: String { rawValue }
    }

    /// The channel the car assigned to the sink in its discovery response.
    public let channel: UInt8
    /// Who the car is (for log lines).
    public let car: String
    /// The sink's `audio_configs`, as the car listed them.
    public let audioConfigs: [AAP.AudioConfiguration]
    /// Whether the car asked for protocol 5.0 or later (then it sends no audio ACKs, §A.1#10).
    public let protocolAtLeast5: Bool
    public let configuration: Configuration
    /// START's `configuration_index`: the index of 48000/16/2 in ``audioConfigs``, 0 when absent.
    public let configurationIndex: UInt32
    /// Whether ``audioConfigs`` lists 48000/16/2.
    public let listsSessionFormat: Bool

    public internal(set) var state = State.closed
    /// The car's window (CONFIG `max_unacked`; 1 until CONFIG, and for 0 or absent).
    public internal(set) var windowSize = 1
    /// DATA messages of the current stream not acknowledged yet (0 while ackless).
    public internal(set) var outstanding = 0
    /// Whether DATA goes without waiting for ACKs.
    public internal(set) var ackless: Bool
    /// The gain applied to the samples: 1, or ``Configuration/duckGain`` while ducked.
    public internal(set) var gain = 1.0
    /// Whether the car gave us audio focus (a GAIN, asked for or not, and no LOSS since).
    public internal(set) var focusHeld = false
    /// Whether the session is playing, as far as the service knows.
    public internal(set) var sessionPlaying = false
    /// The `session_id` of the current (or last) START; nil before the first.
    public internal(set) var sessionId: Int32?

    /// The `session_id` the next START carries.
    var nextSessionId: Int32 = 0
    /// A GAIN request went and no focus notification answered it yet.
    var gainRequested = false
    /// RELEASE requests whose LOSS has not arrived (that LOSS is expected and pauses nothing).
    var releasesUnanswered = 0
    /// The service paused the session for a focus loss and resumes it at the next GAIN.
    var pausedByFocus = false
    /// When the current stream goes ackless if no ACK came (armed at its first packet).
    var ackDeadline: Duration?
    /// Whether an ACK arrived since the current START.
    var ackedSinceStart = false
    var packetsSent = 0, bytesSent = 0, acks = 0, underflows = 0, dropped = 0

    /// A service for the media sink on channel `channel` of the car `car`, which listed
    /// `audioConfigs` for it; `protocolAtLeast5`: the car asked for protocol 5.0 or later.
    public init(
        channel: UInt8, car: String, audioConfigs: [AAP.AudioConfiguration], protocolAtLeast5: Bool,
        configuration: Configuration = .init()
    ) {
        self.channel = channel
        self.car = car
        self.audioConfigs = audioConfigs
        self.protocolAtLeast5 = protocolAtLeast5
        self.configuration = configuration
        self.ackless = protocolAtLeast5
        let index = audioConfigs.firstIndex {
            $0.samplingRate == UInt32(SessionAudioFormat.sampleRate) && $0.numberOfBits == UInt32(SessionAudioFormat.bitsPerSample)
                && $0.numberOfChannels == UInt32(SessionAudioFormat.channelCount)
        }
        self.listsSessionFormat = index != nil
        self.configurationIndex = index.map { UInt32(truncatingIfNeeded: $0) } ?? 0
    }

    /// The sink's channel is open: AUDIO_FOCUS_REQUEST{RELEASE} on channel 0 (what real phones send
    /// right after discovery, §A.1#1) and SETUP{PCM}; then the service waits for CONFIG. Only the
    /// first call sends anything.
    public mutating func open(now: Duration) -> [Action] {
        guard state == .closed else {
            return [.log(AAPServiceLog(level: .warning, message: "media sink on channel \(channel) is already open"))]
        }
        state = .awaitingConfig
        // After RELEASE no focus is held, even if a GAIN came before the channel opened.
        focusHeld = false
        gain = 1
        var actions = [focusRequest(.release)]
        releasesUnanswered += 1
        actions.append(sinkMessage(.setup, AAP.MediaSetup(type: .audioPcm)))
        if !listsSessionFormat {
            let listed = audioConfigs.map { "\($0.samplingRate)/\($0.numberOfBits)/\($0.numberOfChannels)" }
            actions.append(
                .log(
                    AAPServiceLog(
                        level: .warning,
                        message: "media sink lists no 48000/16/2 config (\(listed.joined(separator: ", "))); START uses index 0")))
        }
        return actions + requestFocusIfNeeded()
    }

    /// The session started (`true`) or stopped (`false`) playing. Playing: START when focus is
    /// held and the car is ready, else one GAIN request (never streaming without focus). Stopped:
    /// STOP if a stream runs; focus is kept (a pause is brief).
    public mutating func playbackChanged(playing: Bool, now: Duration) -> [Action] {
        guard playing else {
            sessionPlaying = false
            return stop(because: "the session paused")
        }
        guard !(sessionPlaying && state == .started) else { return [] }
        sessionPlaying = true
        pausedByFocus = false
        if focusHeld { return startIfPossible() }
        return requestFocusIfNeeded()
    }

    /// The session's playback really ended (queue finished, stopped): STOP if a stream runs, then
    /// AUDIO_FOCUS_REQUEST{RELEASE} when focus is held or asked for.
    public mutating func playbackEnded(now: Duration) -> [Action] {
        sessionPlaying = false
        pausedByFocus = false
        var actions = stop(because: "playback ended")
        if focusHeld || gainRequested {
            focusHeld = false
            gainRequested = false
            gain = 1
            releasesUnanswered += 1
            actions.append(focusRequest(.release))
        }
        return actions
    }

    // MARK: - Streams

    /// START, when the session plays, focus is held, the car is ready and no stream runs.
    mutating func startIfPossible() -> [Action] {
        guard sessionPlaying, focusHeld else { return [] }
        guard state == .ready else {
            return state == .started
                ? [] : [.log(AAPServiceLog(level: .info, message: "playing; waiting for the car's CONFIG READY to START"))]
        }
        let id = nextSessionId
        nextSessionId = id == .max ? 0 : id + 1
        sessionId = id
        state = .started
        outstanding = 0
        ackedSinceStart = false
        ackDeadline = nil
        return [
            sinkMessage(.start, AAP.MediaStart(sessionId: id, configurationIndex: configurationIndex)),
            .log(AAPServiceLog(level: .info, message: "media stream \(id) started (configuration \(configurationIndex))")),
        ]
    }

    /// STOP, when a stream runs.
    mutating func stop(because reason: String) -> [Action] {
        guard state == .started else { return [] }
        state = .ready
        ackDeadline = nil
        return [
            sinkMessage(.stop, AAP.MediaStop()),
            .log(AAPServiceLog(level: .info, message: "media stream \(sessionId ?? 0) stopped: \(reason)")),
        ]
    }

    /// One GAIN request while the session plays without focus (never a second before an answer).
    mutating func requestFocusIfNeeded() -> [Action] {
        guard state != .closed, sessionPlaying, !focusHeld else { return [] }
        guard !gainRequested else {
            return [.log(AAPServiceLog(level: .debug, message: "still waiting for the car's audio focus GAIN"))]
        }
        gainRequested = true
        return [
            focusRequest(.gain),
            .log(AAPServiceLog(level: .info, message: "asked the car for audio focus; waiting for GAIN before streaming")),
        ]
    }

    // MARK: - Messages

    static let focusRequestId = UInt16(aap: AAP.ControlMessageType.audioFocusRequest.rawValue)
    static let focusNotificationId = UInt16(aap: AAP.ControlMessageType.audioFocusNotification.rawValue)

    func focusRequest(_ type: AAP.AudioFocusRequest.FocusType) -> Action {
        .send(OutgoingMessage(channel: 0, messageId: Self.focusRequestId, message: AAP.AudioFocusRequest(audioFocusType: type)))
    }

    func sinkMessage(_ id: AAP.MediaMessageId, _ message: some WireMessage) -> Action {
        .send(OutgoingMessage(channel: channel, messageId: UInt16(aap: id.rawValue), message: message))
    }
}
