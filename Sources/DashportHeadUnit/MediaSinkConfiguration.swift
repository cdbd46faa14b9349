/// How the emulated car answers audio focus requests on channel 0 (aap-audio.md §A.1#14). Every
/// mode answers RELEASE with LOSS; they differ in what they do with gain requests and what they
/// send unasked.
public enum AudioFocusBehaviour: Sendable, Hashable {
    /// openauto: every request answered at once, LOSS for RELEASE, GAIN for any gain type; nothing
    /// sent unasked.
    case openauto
    /// headunit/mazda during a call or for a ducking request: gain requests get no answer at all.
    case neverAnswerGain
    /// Answers like openauto, then an unsolicited LOSS `after` the first START (a native source
    /// took over) and, with `regainAfter`, an unsolicited GAIN that long after the LOSS. Once per link.
    case unsolicitedLoss(after: Duration, regainAfter: Duration? = nil)
    /// open-headunit (ohu): answers like openauto and also sends an unsolicited GAIN after every SETUP.
    case unsolicitedGainAfterSetup
}

/// How the car's media audio sink behaves (``MediaSinkClient``). The defaults copy openauto: a
/// window of one, an ACK per DATA, focus answered at once.
public struct MediaSinkConfiguration: Sendable, Hashable {
    /// `max_unacked` in CONFIG: 1 as openauto and headunit, 4096 as Google's DHU (§A.2#5).
    public var window: UInt32
    /// Whether each DATA is acknowledged; `false` is an ackless head unit (protocol ≥ 5.0, §A.1#10).
    public var sendsAcks: Bool
    public var focus: AudioFocusBehaviour
    /// Whether an underflow is also told to the phone (AUDIO_UNDERFLOW_NOTIFICATION); no open head
    /// unit does (§A.3#10), so off by default.
    public var sendsUnderflowNotifications: Bool
    /// How far the playout clock may run dry before an arrival counts as an underflow: 0 is strict
    /// (any DATA that comes after the buffered audio ran out), more models a device buffer.
    public var underflowTolerance: Duration
    /// The latest decoded frames kept for ``MediaSinkClient/recentSamples`` (tone detection, `np`).
    public var retainedFrames: Int
    /// Added to the link's `now` for ACK receive timestamps, which are ns since the Unix epoch on a
    /// real head unit (§A.1#8); 0 keeps them on the link clock (deterministic tests).
    public var epochOffset: Duration

    public init(
        window: UInt32 = 1, sendsAcks: Bool = true, focus: AudioFocusBehaviour = .openauto,
        sendsUnderflowNotifications: Bool = false, underflowTolerance: Duration = .zero,
        retainedFrames: Int = 4096, epochOffset: Duration = .zero
    ) {
        self.window = window
        self.sendsAcks = sendsAcks
        self.focus = focus
        self.sendsUnderflowNotifications = sendsUnderflowNotifications
        self.underflowTolerance = underflowTolerance
        self.retainedFrames = retainedFrames
        self.epochOffset = epochOffset
    }
}
