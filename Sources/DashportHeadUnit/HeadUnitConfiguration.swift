public import DashportFrames
public import DashportLink
public import DashportMessages

/// How the emulated head unit behaves. The defaults copy an opencardev/aasdk head unit as
/// measured (aap-protocol.md §8): version 1.6, fixed channels, AUTH_COMPLETE and pings in plaintext.
/// The other knobs exist to script misbehaving head units in tests and in `dashport-hu`.
public struct HeadUnitConfiguration: Sendable {
    /// How the head unit sends AUTH_COMPLETE, PING_REQUEST and PING_RESPONSE once TLS is up.
    public enum ControlEncryption: Sendable, Hashable {
        /// Plaintext, as aasdk does (flags 0x03), even when answering an encrypted ping.
        case plain
        /// Encrypted, as gartnera/headunit does (flags 0x0B).
        case encrypted
    }

    /// The version asked for in VERSION_REQUEST. aasdk asks 1.6, headunit 1.1, real cars 1.7+.
    public var version: AAPVersion
    /// What the discovery response says: identity, driver position, ping configuration and the
    /// services with their channel ids.
    public var car: CarDescription
    public var controlEncryption: ControlEncryption
    /// Whether PING_REQUESTs are answered (openauto never answers them, §8.3).
    public var answersPings: Bool
    /// How often the head unit pings once running; `nil` (the default) never, like openauto.
    public var pingInterval: Duration?
    /// Channels whose CHANNEL_OPEN_REQUEST is never answered, although listed. (Requests for
    /// unlisted channels are never answered either, as in aasdk §8.9.)
    public var unansweredChannelOpens: Set<UInt8>
    /// Channels whose CHANNEL_OPEN_REQUEST is answered with this non-zero status instead of 0.
    public var refusedChannelOpens: [UInt8: Int32]
    /// The AUTH_COMPLETE body; `nil` sends `AuthResponse{status: 0}` (`08 00`), `[]` an empty body.
    public var authCompleteBody: [UInt8]?
    /// Whether SERVICE_DISCOVERY_REQUEST is answered at all (a stalled head unit when `false`).
    public var answersDiscovery: Bool
    /// Replaces the SERVICE_DISCOVERY_RESPONSE body built from ``car`` (to script a broken one).
    public var discoveryResponseBody: [UInt8]?
    /// Setup must finish within this time from ``HeadUnitLink/start(now:)``.
    public var handshakeDeadline: Duration
    /// The phone's first bytes must come within this time from ``HeadUnitLink/start(now:)``, or
    /// the link closes with ``LinkCloseReason/notAAPServer(_:)``: an AAP phone answers
    /// VERSION_REQUEST at once, an HTTP server waits silently for the rest of a request. `nil`:
    /// only ``handshakeDeadline`` applies.
    public var firstAnswerDeadline: Duration? = .seconds(3)
    /// After our BYEBYE_REQUEST, how long to wait for the answer before closing anyway.
    public var byeByeGrace: Duration
    public var limits: FrameLimits
    /// How the car hears media audio and answers audio focus (``MediaSinkClient``): on the PCM
    /// media sink ``car`` lists, if any, and on channel 0. `nil` leaves both to the caller: sink
    /// messages and focus requests then arrive as plain events, unanswered.
    public var audio: MediaSinkConfiguration?

    public init(
        version: AAPVersion = AAPVersion(major: 1, minor: 6),
        car: CarDescription = HeadUnitConfiguration.aasdkLikeCar,
        controlEncryption: ControlEncryption = .plain,
        answersPings: Bool = true,
        pingInterval: Duration? = nil,
        unansweredChannelOpens: Set<UInt8> = [],
        refusedChannelOpens: [UInt8: Int32] = [:],
        authCompleteBody: [UInt8]? = nil,
        answersDiscovery: Bool = true,
        discoveryResponseBody: [UInt8]? = nil,
        handshakeDeadline: Duration = .seconds(10),
        byeByeGrace: Duration = .seconds(1),
        limits: FrameLimits = .default,
        audio: MediaSinkConfiguration? = MediaSinkConfiguration()
    ) {
        self.version = version
        self.car = car
        self.controlEncryption = controlEncryption
        self.answersPings = answersPings
        self.pingInterval = pingInterval
        self.unansweredChannelOpens = unansweredChannelOpens
        self.refusedChannelOpens = refusedChannelOpens
        self.authCompleteBody = authCompleteBody
        self.answersDiscovery = answersDiscovery
        self.discoveryResponseBody = discoveryResponseBody
        self.handshakeDeadline = handshakeDeadline
        self.byeByeGrace = byeByeGrace
        self.limits = limits
        self.audio = audio
    }

    /// The Android media keycodes: play/pause 85, stop 86, next 87, previous 88, play 126, pause 127.
    public static let mediaKeycodes: [Int32] = [85, 86, 87, 88, 126, 127]

    /// The format of the default car's media audio sink: 48000 Hz, 16 bits, stereo.
    public static let mediaAudioFormat = AAP.AudioConfiguration(samplingRate: 48_000, numberOfBits: 16, numberOfChannels: 2)

    /// The default car's media audio sink: channel 4 as in aasdk, MEDIA, PCM 48000/16/2.
    public static let mediaAudioSink = CarService(
        channel: 4, kind: .mediaSink(audioType: .media, codec: .audioPcm, audioConfigs: [mediaAudioFormat]))

    /// The default car: aasdk's fixed channels (input 8 with the media keys, media playback
    /// status 13, media browser 15), the Dashport media channel on 16, and a PCM media audio sink
    /// on 4 (``mediaAudioSink``; `dashport-hu --no-audio` leaves it out).
    public static let aasdkLikeCar = CarDescription(
        identity: HeadUnitIdentity(
            make: "Dashport", model: "Emulated Car", year: "2026", vehicleId: "dashport-hu-0001",
            headUnitMake: "Dashport", headUnitModel: "dashport-hu",
            headUnitSoftwareBuild: "1", headUnitSoftwareVersion: "1.0"
        ),
        driverPosition: .left,
        services: [
            CarService(channel: 8, kind: .input(keycodes: mediaKeycodes)),
            CarService(channel: 13, kind: .mediaPlaybackStatus),
            CarService(channel: 15, kind: .mediaBrowser),
            CarService(channel: 16, kind: .vendorExtension(name: LinkConfiguration.dashportMediaServiceName, data: [])),
            mediaAudioSink,
        ]
    )
}
