public import DashportMessages

/// Something the media audio sink saw or did, reported as ``HeadUnitEvent/audio(_:)``. DATA is
/// not an event (it comes 23 times a second): see ``MediaSinkClient/stats`` and the PCM consumer.
public enum MediaSinkEvent: Sendable, Hashable {
    /// SETUP for `codec`; CONFIG{READY} went out.
    case setUp(codec: AAP.MediaCodecType)
    /// START: a stream began with this session id and index into the sink's audio configs.
    case started(sessionId: Int32, configurationIndex: UInt32)
    /// STOP: the stream of `sessionId` ended after `packets` DATA messages.
    case stopped(sessionId: Int32, packets: Int)
    /// DATA came `late` after the buffered audio had run out (the playout clock restarts there).
    case underflow(sessionId: Int32, late: Duration)
    /// The phone broke the protocol (DATA outside START…STOP, CODEC_CONFIG on PCM, a malformed
    /// body, ...): counted in ``MediaSinkStats/violations`` and logged by the link.
    case violation(String)
    /// AUDIO_FOCUS_REQUEST on channel 0 (`nil`: the body did not decode) and our answer, if any.
    case focusRequested(AAP.AudioFocusRequest.FocusType?, answer: AAP.AudioFocusNotification.State?)
    /// An AUDIO_FOCUS_NOTIFICATION we sent unasked (``AudioFocusBehaviour``).
    case unsolicitedFocus(AAP.AudioFocusNotification.State)
}

/// What a ``MediaSinkClient`` call asks of its driver, in order.
public enum MediaSinkOutput: Sendable, Hashable {
    /// Send this message, encrypted: focus notifications on channel 0, CONFIG and ACK on the sink.
    case send(channel: UInt8, messageId: UInt16, body: [UInt8])
    case event(MediaSinkEvent)
    /// Decoded PCM of one DATA within a session: interleaved S16 samples in the START's format.
    case samples([Int16])
}

/// Counters of a media audio sink since the link started.
public struct MediaSinkStats: Sendable, Hashable {
    public var setups = 0
    public var starts = 0
    public var stops = 0
    /// DATA messages within START…STOP, and their PCM bytes (without the 8-byte timestamps).
    public var packets = 0
    public var bytes = 0
    public var acksSent = 0
    /// Arrivals after the buffered audio had run out (see ``MediaSinkClient/lead(at:)``).
    public var underflows = 0
    /// DATA outside START…STOP (dropped, still acknowledged with session id -1 as openauto does).
    public var dataOutsideSession = 0
    /// CODEC_CONFIG messages on this PCM sink (openauto would play their bytes as noise).
    public var codecConfigs = 0
    /// SETUP, START or DATA bodies that did not decode, or messages the sink does not know.
    public var malformed = 0
    /// Every protocol violation, those above included.
    public var violations = 0
    public var focusRequests = 0
    /// STARTs while the phone held no focus it had been granted (a phone should ask GAIN first).
    public var startsWithoutFocus = 0
    /// The running stream's session id; nil outside START…STOP.
    public var sessionId: Int32?
    /// The timestamp (µs) of the latest DATA.
    public var lastTimestampUs: UInt64?
    /// How much audio the sessions' DATA held, in total.
    public var audioReceived: Duration = .zero

    public init() {}
}
