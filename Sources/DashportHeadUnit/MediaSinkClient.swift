import DashportDigest
public import DashportLink
public import DashportMessages

/// The car side of a media audio sink, sans-IO: answers SETUP with CONFIG, tracks START and STOP,
/// acknowledges and decodes DATA, keeps a playout clock to count underflows, and answers audio
/// focus requests on channel 0 (``AudioFocusBehaviour``). It is what makes the emulated car hear
/// the phone's music (aap-audio.md §A).
///
/// It never touches the link: hand it every message of the sink channel (``receive(messageId:body:now:)``)
/// and every AUDIO_FOCUS_REQUEST (``receiveFocusRequest(_:now:)``), call ``tick(now:)`` at
/// ``nextDeadline``, and carry out the returned ``MediaSinkOutput``s in order. ``HeadUnitLink`` does
/// all of that when ``HeadUnitConfiguration/audio`` is set. Time is the caller's `now`.
public struct MediaSinkClient: Sendable {
    /// The format a START without a usable configuration index is read in: 48000/16/2.
    public static let defaultFormat = AAP.AudioConfiguration(samplingRate: 48_000, numberOfBits: 16, numberOfChannels: 2)

    /// The sink's channel; nil for a car without a PCM media sink (focus is still answered).
    public let channel: UInt8?
    public let configuration: MediaSinkConfiguration
    /// The formats the sink lists; START's `configuration_index` points into them.
    public let audioConfigs: [AAP.AudioConfiguration]
    public internal(set) var stats = MediaSinkStats()
    /// The codec of the latest SETUP.
    public internal(set) var codec: AAP.MediaCodecType?
    /// The focus state we last told the phone (answer or unsolicited); nil before any.
    public internal(set) var focus: AAP.AudioFocusNotification.State?
    /// The running (or last) stream's format.
    public internal(set) var format: AAP.AudioConfiguration = MediaSinkClient.defaultFormat
    /// The latest ``MediaSinkConfiguration/retainedFrames`` frames heard, interleaved.
    public internal(set) var recentSamples: [Int16] = []

    /// The playout clock: when it (re)started, and how much audio arrived since.
    var playoutAnchor: Duration?
    var bufferedSinceAnchor: Duration = .zero
    var sessionPackets = 0
    var expectedSessionId: Int32 = 0
    var firstStartAt: Duration?
    /// Unsolicited focus notifications still to send, soonest first.
    var scheduledFocus: [(at: Duration, state: AAP.AudioFocusNotification.State)] = []

    public init(
        channel: UInt8?, audioConfigs: [AAP.AudioConfiguration] = [], configuration: MediaSinkConfiguration = MediaSinkConfiguration()
    ) {
        self.channel = channel
        self.audioConfigs = audioConfigs
        self.configuration = configuration
    }

    /// A sink for `car`'s PCM media sink (``CarDescription/mediaAudioSink``), if it lists one.
    public init(car: CarDescription, configuration: MediaSinkConfiguration = MediaSinkConfiguration()) {
        let sink = car.mediaAudioSink
        var configs: [AAP.AudioConfiguration] = []
        if case .mediaSink(_, _, let listed)? = sink?.kind { configs = listed }
        self.init(channel: sink?.channel, audioConfigs: configs, configuration: configuration)
    }

    /// How far the audio received runs ahead of real time at `now`: received since the playout
    /// clock started (the first DATA after START, or the last underflow) minus the time since. Nil
    /// outside START…STOP and before the session's first DATA. Negative means the car is starved.
    public func lead(at now: Duration) -> Duration? {
        guard stats.sessionId != nil, let playoutAnchor else { return nil }
        return bufferedSinceAnchor - (now - playoutAnchor)
    }

    /// Takes one message the phone sent on the sink channel.
    public mutating func receive(messageId: UInt16, body: [UInt8], now: Duration) -> [MediaSinkOutput] {
        var out: [MediaSinkOutput] = []
        switch Int32(messageId) {
        case AAP.MediaMessageId.data.rawValue: receiveData(body, now: now, &out)
        case AAP.MediaMessageId.codecConfig.rawValue:
            stats.codecConfigs += 1
            violation("CODEC_CONFIG (\(body.count) bytes) on a PCM sink; openauto would play it as noise", &out)
        case AAP.MediaMessageId.setup.rawValue: receiveSetup(body, now: now, &out)
        case AAP.MediaMessageId.start.rawValue: receiveStart(body, now: now, &out)
        case AAP.MediaMessageId.stop.rawValue: receiveStop(&out)
        default:
            stats.malformed += 1
            violation("message \(Hex.id(messageId)) (\(body.count) bytes) is not one a phone sends to an audio sink", &out)
        }
        return out
    }

    private mutating func receiveSetup(_ body: [UInt8], now: Duration, _ out: inout [MediaSinkOutput]) {
        guard let setup = try? AAP.MediaSetup(serializedBytes: body) else {
            stats.malformed += 1
            violation("SETUP body of \(body.count) bytes does not decode; not answered", &out)
            return
        }
        stats.setups += 1
        codec = setup.type
        if setup.type != .audioPcm { violation("SETUP for codec \(setup.type) on a PCM sink; answered READY anyway", &out) }
        let config = AAP.MediaConfig(status: .ready, maxUnacked: configuration.window, configurationIndices: [0])
        sendOnSink(AAP.MediaMessageId.config, config.serializedBytes(), &out)
        out.append(.event(.setUp(codec: setup.type)))
        if configuration.focus == .unsolicitedGainAfterSetup {
            sendFocus(.gain, unsolicited: true, &out)
            out.append(.event(.unsolicitedFocus(.gain)))
        }
    }

    private mutating func receiveStart(_ body: [UInt8], now: Duration, _ out: inout [MediaSinkOutput]) {
        guard let start = try? AAP.MediaStart(serializedBytes: body) else {
            stats.malformed += 1
            violation("START body of \(body.count) bytes does not decode; ignored", &out)
            return
        }
        if let running = stats.sessionId { violation("START of session \(start.sessionId) while session \(running) runs (no STOP)", &out) }
        if start.sessionId != expectedSessionId {
            violation("START with session id \(start.sessionId); the next one is \(expectedSessionId)", &out)
        }
        if codec == nil { violation("START before any SETUP", &out) }
        let index = Int(start.configurationIndex)
        if audioConfigs.indices.contains(index) {
            format = audioConfigs[index]
        } else {
            format = Self.defaultFormat
            if !audioConfigs.isEmpty {
                violation("START names configuration \(index); the sink lists \(audioConfigs.count)", &out)
            }
        }
        if !(focus.map(Self.isGain) ?? false) {
            stats.startsWithoutFocus += 1
        }
        stats.starts += 1
        stats.sessionId = start.sessionId
        expectedSessionId = start.sessionId &+ 1
        sessionPackets = 0
        playoutAnchor = nil
        bufferedSinceAnchor = .zero
        out.append(.event(.started(sessionId: start.sessionId, configurationIndex: start.configurationIndex)))
        if firstStartAt == nil {
            firstStartAt = now
            if case .unsolicitedLoss(let after, let regainAfter) = configuration.focus {
                scheduledFocus.append((now + after, .loss))
                if let regainAfter { scheduledFocus.append((now + after + regainAfter, .gain)) }
            }
        }
    }

    private mutating func receiveStop(_ out: inout [MediaSinkOutput]) {
        guard let sessionId = stats.sessionId else {
            violation("STOP while no stream runs", &out)
            return
        }
        stats.stops += 1
        stats.sessionId = nil
        playoutAnchor = nil
        out.append(.event(.stopped(sessionId: sessionId, packets: sessionPackets)))
    }

    func sendOnSink(_ id: AAP.MediaMessageId, _ body: [UInt8], _ out: inout [MediaSinkOutput]) {
        guard let channel else { return }
        out.append(.send(channel: channel, messageId: UInt16(truncatingIfNeeded: id.rawValue), body: body))
    }

    mutating func violation(_ text: String, _ out: inout [MediaSinkOutput]) {
        stats.violations += 1
        out.append(.event(.violation(text)))
    }
}
