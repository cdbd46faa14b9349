public import DashportFrames

/// Settings of one phone-role link. Every default is what a stock AAP head unit expects.
public struct LinkConfiguration: Sendable {
    /// ServiceDiscoveryRequest field 4 (`label_text`); real phones send "Android".
    public var labelText: String
    /// ServiceDiscoveryRequest field 5 (`device_name`); real phones send e.g. "Google Pixel 8".
    public var deviceName: String
    /// Setup (version exchange → TLS → auth → discovery) must finish within this time, counted from
    /// the first call to ``PhoneLink/receive(_:now:)`` or ``PhoneLink/tick(now:)``. Default 10 s.
    public var handshakeDeadline: Duration
    /// Until AUTH_COMPLETE, unfinished messages may hold at most this many bytes (a FIRST frame is
    /// charged its declared total). Setup messages are small (a TLS flight is a few KiB), so a
    /// peer that has not authenticated cannot make the server hold ``FrameLimits/maxPendingBytes``.
    /// Default 64 KiB.
    public var unauthenticatedMaxPendingBytes: Int
    /// Until AUTH_COMPLETE, the peer may send at most this many bytes in all; more closes the link
    /// (``LinkCloseReason/setupInputExceeded(limit:)``). A real setup is 1.5–2 KiB (1,491 bytes
    /// with the test identities, `SetupFrameTests`; about 1.6 KiB from aasdk, aap-protocol.md
    /// §8.11) and the largest message allowed before authentication is
    /// ``unauthenticatedMaxPendingBytes``, so this bounds the work a peer that never authenticates
    /// can make the server do while leaving room for one such message. Default 128 KiB.
    public var unauthenticatedMaxInputBytes: Int
    /// Until AUTH_COMPLETE, the peer may send at most this many frames; more closes the link
    /// (``LinkCloseReason/setupFramesExceeded(limit:)``). A real setup is 4 frames; 256 leaves room
    /// for a 64 KiB message cut into 2,000-byte fragments (as aacs does) several times over, and
    /// bounds what a flood of tiny frames costs to parse. Default 256.
    public var unauthenticatedMaxFrames: Int
    /// Close the link after this long without a received byte. Off (`nil`) by default: some head
    /// units (openauto) send nothing at all when idle (aap-protocol.md §8.3).
    public var idleDeadline: Duration?
    /// How often we send PING_REQUEST once running. A ping interval the head unit advertises in its
    /// discovery response wins, clamped to ``pingIntervalRange``. Default 1 s.
    public var pingInterval: Duration
    /// The range an advertised ping interval is clamped into.
    public var pingIntervalRange: ClosedRange<Duration>
    /// Highest minor version we answer for major 1: we answer 1.min(requested, this). Default 7.
    public var maxMinorVersion: UInt16
    /// How long a CHANNEL_OPEN_REQUEST may stay unanswered before it is reported as failed.
    public var channelOpenTimeout: Duration
    /// After our BYEBYE_REQUEST, how long to wait for BYEBYE_RESPONSE before closing anyway.
    public var byeByeGrace: Duration
    /// Frame and message size caps (receive and send).
    public var limits: FrameLimits
    /// Which of the listed services we send CHANNEL_OPEN_REQUEST for.
    public var wantsService: @Sendable (CarService) -> Bool
    /// Messages decoded (and decrypted) per ``PhoneLink/receive(_:now:)`` at most; the rest wait in
    /// the link for the next call (``PhoneLink/hasMoreToDecode``), so one car's 64 KiB of pings is
    /// handled in slices with the other cars served between them (swift-nio's
    /// `maxMessagesPerRead`). Eight, as many as a car's worker takes inputs per turn: with 64, a
    /// flooder's slice was 64 messages against each of 50 good cars' one request a turn, and the
    /// good cars' rate beside a GET_CHILDREN flood fell to half (`dashport-bench-link`).
    public var maxMessagesPerReceive = 8

    public init(
        labelText: String = "Dashport",
        deviceName: String = "Dashport on Linux",
        handshakeDeadline: Duration = .seconds(10),
        unauthenticatedMaxPendingBytes: Int = 64 * 1024,
        unauthenticatedMaxInputBytes: Int = 128 * 1024,
        unauthenticatedMaxFrames: Int = 256,
        idleDeadline: Duration? = nil,
        pingInterval: Duration = .seconds(1),
        pingIntervalRange: ClosedRange<Duration> = .milliseconds(200) ... .seconds(30),
        maxMinorVersion: UInt16 = 7,
        channelOpenTimeout: Duration = .seconds(5),
        byeByeGrace: Duration = .seconds(1),
        limits: FrameLimits = .default,
        wantsService: @escaping @Sendable (CarService) -> Bool = LinkConfiguration.drivesDashportServices
    ) {
        self.labelText = labelText
        self.deviceName = deviceName
        self.handshakeDeadline = handshakeDeadline
        self.unauthenticatedMaxPendingBytes = unauthenticatedMaxPendingBytes
        self.unauthenticatedMaxInputBytes = unauthenticatedMaxInputBytes
        self.unauthenticatedMaxFrames = unauthenticatedMaxFrames
        self.idleDeadline = idleDeadline
        self.pingInterval = pingInterval
        self.pingIntervalRange = pingIntervalRange
        self.maxMinorVersion = maxMinorVersion
        self.channelOpenTimeout = channelOpenTimeout
        self.byeByeGrace = byeByeGrace
        self.limits = limits
        self.wantsService = wantsService
    }

    /// The vendor-extension service name of the Dashport media channel.
    public static let dashportMediaServiceName = "dashport.media"

    /// The default service choice: media playback status, input, the classic media browser, the
    /// Dashport media channel (vendor extension `dashport.media`) and the PCM media audio sink
    /// (of several, the link opens only ``CarDescription/mediaAudioSink``). Other sinks, sensors
    /// and other vendor extensions are left closed.
    public static let drivesDashportServices: @Sendable (CarService) -> Bool = { service in
        switch service.kind {
        case .mediaPlaybackStatus, .input, .mediaBrowser:
            true
        case .vendorExtension(let name, _):
            name == LinkConfiguration.dashportMediaServiceName
        case .mediaSink:
            service.isPCMMediaSink
        case .sensor, .other:
            false
        }
    }

    /// ``drivesDashportServices`` without the media audio sink (`dashport serve --no-audio`).
    public static let drivesDashportServicesWithoutAudio: @Sendable (CarService) -> Bool = { service in
        !service.isAudioSink && drivesDashportServices(service)
    }
}
