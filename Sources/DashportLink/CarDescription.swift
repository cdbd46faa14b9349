public import DashportMessages

/// One service the head unit listed in its SERVICE_DISCOVERY_RESPONSE, with the channel id the
/// head unit assigned to it (aap-protocol.md §3.3). Channel ids only ever come from there.
public struct CarService: Sendable, Hashable, CustomStringConvertible {
    /// The channel id in frame byte 0 for this service (1…255; 0 is the control channel).
    public var channel: UInt8
    public var kind: Kind

    public init(channel: UInt8, kind: Kind) {
        self.channel = channel
        self.kind = kind
    }

    /// Which service a `Service` entry describes: the one of its fields 2–14 that is present.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// Field 9: we push MEDIA_PLAYBACK_STATUS and MEDIA_PLAYBACK_METADATA.
        case mediaPlaybackStatus
        /// Field 4: the head unit's keys (Android keycodes, 65536+ for rotary/media extras).
        case input(keycodes: [Int32])
        /// Field 11: the classic path-based media browser.
        case mediaBrowser
        /// Field 12: a vendor extension, e.g. the Dashport media channel `dashport.media`;
        /// `data` is the extension's opaque configuration (the car profile for ours).
        case vendorExtension(name: String, data: [UInt8])
        /// Field 3: an audio or video sink, with the PCM formats an audio sink accepts (the
        /// indices of `audioConfigs` are what START's `configuration_index` names).
        case mediaSink(audioType: AAP.AudioStreamType?, codec: AAP.MediaCodecType?, audioConfigs: [AAP.AudioConfiguration] = [])
        /// Field 2: the sensor types the head unit can report.
        case sensor(types: [AAP.SensorType])
        /// Any other service, by its `Service` field number (5 microphone, 6 Bluetooth, 7 radio,
        /// 8 navigation status, 10 phone status, 13 generic notification, 14 Wi-Fi projection),
        /// or 0 when no known field was present.
        case other(field: Int)

        public var description: String {
            switch self {
            case .mediaPlaybackStatus: "mediaPlaybackStatus"
            case .input(let keycodes): "input(\(keycodes.count) keycodes)"
            case .mediaBrowser: "mediaBrowser"
            case .vendorExtension(let name, let data): "vendorExtension(\(name), \(data.count) bytes)"
            case .mediaSink(let audioType, let codec, let configs):
                "mediaSink(audio \(audioType.map { "\($0.rawValue)" } ?? "none"), codec \(codec.map { "\($0.rawValue)" } ?? "none"), \(configs.count) configs)"
            case .sensor(let types): "sensor(\(types.map(\.rawValue)))"
            case .other(let field): "other(field \(field))"
            }
        }
    }

    public var description: String { "\(kind) on channel \(channel)" }
}

/// Where the driver sits (ServiceDiscoveryResponse field 6).
public enum DriverPosition: Sendable, Hashable {
    case left, right, center, unknown
}

/// Make, model and head-unit software, from ServiceDiscoveryResponse field 17 (`HeadUnitInfo`)
/// where present, else from the deprecated fields 2–5 and 7–10, field by field.
public struct HeadUnitIdentity: Sendable, Hashable {
    public var make: String?
    public var model: String?
    public var year: String?
    public var vehicleId: String?
    public var headUnitMake: String?
    public var headUnitModel: String?
    public var headUnitSoftwareBuild: String?
    public var headUnitSoftwareVersion: String?

    public init(
        make: String? = nil, model: String? = nil, year: String? = nil, vehicleId: String? = nil,
        headUnitMake: String? = nil, headUnitModel: String? = nil,
        headUnitSoftwareBuild: String? = nil, headUnitSoftwareVersion: String? = nil
    ) {
        self.make = make
        self.model = model
        self.year = year
        self.vehicleId = vehicleId
        self.headUnitMake = headUnitMake
        self.headUnitModel = headUnitModel
        self.headUnitSoftwareBuild = headUnitSoftwareBuild
        self.headUnitSoftwareVersion = headUnitSoftwareVersion
    }
}

/// The head unit's ping preferences (field 16 → ConnectionConfiguration → PingConfiguration).
public struct CarPingConfiguration: Sendable, Hashable {
    public var timeout: Duration?
    public var interval: Duration?
    public var highLatencyThreshold: Duration?
    public var trackedPingCount: Int?

    public init(
        timeout: Duration? = nil, interval: Duration? = nil,
        highLatencyThreshold: Duration? = nil, trackedPingCount: Int? = nil
    ) {
        self.timeout = timeout
        self.interval = interval
        self.highLatencyThreshold = highLatencyThreshold
        self.trackedPingCount = trackedPingCount
    }
}

/// A typed view of the head unit's SERVICE_DISCOVERY_RESPONSE: who the car is and which services
/// it offers on which channels (aap-protocol.md §3.2).
public struct CarDescription: Sendable, Hashable {
    public var identity: HeadUnitIdentity
    public var driverPosition: DriverPosition?
    /// Field 14, a name the head unit wants shown for itself.
    public var displayName: String?
    public var ping: CarPingConfiguration?
    /// The listed services in the order the head unit sent them; channel ids are unique.
    public var services: [CarService]

    public init(
        identity: HeadUnitIdentity = HeadUnitIdentity(), driverPosition: DriverPosition? = nil,
        displayName: String? = nil, ping: CarPingConfiguration? = nil, services: [CarService] = []
    ) {
        self.identity = identity
        self.driverPosition = driverPosition
        self.displayName = displayName
        self.ping = ping
        self.services = services
    }

    /// The service the head unit listed on `channel`, if any.
    public func service(onChannel channel: UInt8) -> CarService? {
        services.first { $0.channel == channel }
    }
}

extension CarService {
    /// An audio sink of any stream type (field 3 with an `audio_type`).
    public var isAudioSink: Bool {
        if case .mediaSink(let audioType, _, _) = kind { audioType != nil } else { false }
    }

    /// A MEDIA audio sink that takes PCM (an absent `available_type` is PCM, its default).
    public var isPCMMediaSink: Bool {
        guard case .mediaSink(let audioType, let codec, _) = kind, audioType == .media else { return false }
        return codec == nil || codec == .audioPcm
    }
}

extension CarDescription {
    /// The sink Dashport streams media audio to: the first MEDIA sink that takes PCM (a car such as
    /// VW's MIB3 lists an AAC and a PCM media sink; aap-audio.md §A.4). Nil when it lists none.
    public var mediaAudioSink: CarService? { services.first(where: \.isPCMMediaSink) }
}
