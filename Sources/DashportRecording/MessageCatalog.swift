public import DashportLink
public import DashportMessages

/// Which AAP service a channel carries, as recordings name it (`service` of a line).
public enum RecordedService: String, Sendable, Hashable, CaseIterable {
    case control
    case input
    case mediaPlaybackStatus
    case mediaBrowser
    case dashportMedia = "dashport.media"
    /// A media audio sink (its DATA is summarised, ``AudioSummary``).
    case audioSink = "audio"
    case other

    /// The service of a channel the car listed.
    public init(_ kind: CarService.Kind?) {
        switch kind {
        case nil: self = .other
        case .input?: self = .input
        case .mediaPlaybackStatus?: self = .mediaPlaybackStatus
        case .mediaBrowser?: self = .mediaBrowser
        case .vendorExtension(let name, _)? where name == "dashport.media": self = .dashportMedia
        case .mediaSink(let audioType, _, _)? where audioType != nil: self = .audioSink
        default: self = .other
        }
    }
}

/// How one message id on one service turns into JSON and back: the generated JSON form of its
/// `.proto` message (`JSONMessage`), or, for the few bodies that are not protobuf, a fixed shape.
///
/// The table below only says which message each id carries; every body's JSON comes from the
/// code `tools/generate/protoc-gen-dashport-swift` generates.
public struct MessageCodec: Sendable {
    /// The recording's `name`: the schema's name of the message id (`getChildren`, `versionRequest`).
    public let name: String
    public let toJSON: @Sendable ([UInt8]) -> JSONValue
    public let fromJSON: @Sendable (JSONValue) throws(JSONDecodingError) -> [UInt8]

    init(
        name: String, toJSON: @escaping @Sendable ([UInt8]) -> JSONValue,
        fromJSON: @escaping @Sendable (JSONValue) throws(JSONDecodingError) -> [UInt8]
    ) {
        self.name = name
        self.toJSON = toJSON
        self.fromJSON = fromJSON
    }

    /// A protobuf body; bytes that do not decode are kept as `{"undecodable": base64}`.
    static func message<M: JSONMessage>(_ name: String, _ type: M.Type) -> MessageCodec {
        MessageCodec(
            name: name,
            toJSON: { bytes in
                guard let message = try? M(serializedBytes: bytes) else { return raw(bytes, key: "undecodable") }
                return message.jsonValue
            },
            fromJSON: { json throws(JSONDecodingError) in
                if case .object(let members) = json, members.count == 1, members[0].key == "undecodable" {
                    return try JSONFields.bytes(json: members[0].value, path: "\(name).undecodable")
                }
                return try M(json: json, path: name).serializedBytes()
            })
    }

    /// Big-endian 16-bit fields (VERSION_REQUEST/RESPONSE, aap-protocol.md §2.3).
    static func shorts(_ name: String, _ keys: [String]) -> MessageCodec {
        MessageCodec(
            name: name,
            toJSON: { bytes in
                guard bytes.count == keys.count * 2 else { return raw(bytes, key: "raw") }
                return .object(
                    keys.enumerated().map { index, key in
                        JSONMember(key, .number(String(UInt16(bytes[2 * index]) << 8 | UInt16(bytes[2 * index + 1]))))
                    })
            },
            fromJSON: { json throws(JSONDecodingError) in
                if let rawValue = json["raw"] { return try JSONFields.bytes(json: rawValue, path: "\(name).raw") }
                var out: [UInt8] = []
                for key in keys {
                    let value = try UInt16(json: json[key] ?? .null, path: "\(name).\(key)")
                    out += [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
                }
                return out
            })
    }

    /// A body the schema does not describe: `{"raw": base64}`.
    static func unknown(_ name: String) -> MessageCodec {
        MessageCodec(
            name: name, toJSON: { raw($0, key: "raw") },
            fromJSON: { json throws(JSONDecodingError) in
                try JSONFields.bytes(json: json["raw"] ?? .null, path: "\(name).raw")
            })
    }

    static func raw(_ bytes: [UInt8], key: String) -> JSONValue {
        .object([JSONMember(key, JSONFields.bytes(bytes))])
    }
}

extension UInt16 {
    init(json: JSONValue, path: String) throws(JSONDecodingError) {
        let wide = try UInt32(json: json, path: path)
        guard let value = UInt16(exactly: wide) else { throw JSONDecodingError(path: path, problem: "\(wide) is over 65535") }
        self = value
    }
}

/// Which message each id carries on each service (aap-protocol.md §2–§4, dashport_media.proto).
public enum MessageCatalog {
    /// The codec of `messageId` on a channel of `service`. Ids 7 and 8 (channel open) are
    /// control-namespace ids on every channel.
    public static func codec(service: RecordedService, messageId: UInt16) -> MessageCodec {
        if service != .control, messageId == 7 { return .message("channelOpenRequest", AAP.ChannelOpenRequest.self) }
        if service != .control, messageId == 8 { return .message("channelOpenResponse", AAP.ChannelOpenResponse.self) }
        let id = Int32(messageId)
        switch service {
        case .control: return control(id)
        case .input: return input(id)
        case .mediaPlaybackStatus: return playbackStatus(id)
        case .mediaBrowser: return browser(id)
        case .dashportMedia: return dashport(id)
        case .audioSink: return audioSink(id)
        case .other: return .unknown("message\(messageId)")
        }
    }

    private static func control(_ id: Int32) -> MessageCodec {
        let name = AAP.ControlMessageType(rawValue: id).description
        switch AAP.ControlMessageType(rawValue: id) {
        case .versionRequest: return .shorts(name, ["major", "minor"])
        case .versionResponse: return .shorts(name, ["major", "minor", "status"])
        case .authComplete: return .message(name, AAP.AuthResponse.self)
        case .serviceDiscoveryRequest: return .message(name, AAP.ServiceDiscoveryRequest.self)
        case .serviceDiscoveryResponse: return .message(name, AAP.ServiceDiscoveryResponse.self)
        case .channelOpenRequest: return .message(name, AAP.ChannelOpenRequest.self)
        case .channelOpenResponse: return .message(name, AAP.ChannelOpenResponse.self)
        case .pingRequest: return .message(name, AAP.PingRequest.self)
        case .pingResponse: return .message(name, AAP.PingResponse.self)
        case .byebyeRequest: return .message(name, AAP.ByeByeRequest.self)
        case .byebyeResponse: return .message(name, AAP.ByeByeResponse.self)
        case .navFocusRequest: return .message(name, AAP.NavFocusRequestNotification.self)
        case .navFocusNotification: return .message(name, AAP.NavFocusNotification.self)
        case .voiceSessionNotification: return .message(name, AAP.VoiceSessionNotification.self)
        case .audioFocusRequest: return .message(name, AAP.AudioFocusRequest.self)
        case .audioFocusNotification: return .message(name, AAP.AudioFocusNotification.self)
        case .batteryStatusNotification: return .message(name, AAP.BatteryStatusNotification.self)
        case .callAvailabilityStatus: return .message(name, AAP.CallAvailabilityStatus.self)
        case .carConnectedDevicesResponse: return .message(name, AAP.CarConnectedDevices.self)
        case .userSwitchRequest: return .message(name, AAP.UserSwitchRequest.self)
        case .userSwitchResponse: return .message(name, AAP.UserSwitchResponse.self)
        case .serviceDiscoveryUpdate: return .message(name, AAP.ServiceDiscoveryUpdate.self)
        default: return .unknown(name)
        }
    }

    private static func input(_ id: Int32) -> MessageCodec {
        let name = AAP.InputMessageId(rawValue: id).description
        switch AAP.InputMessageId(rawValue: id) {
        case .inputReport: return .message(name, AAP.InputReport.self)
        case .keyBindingRequest: return .message(name, AAP.KeyBindingRequest.self)
        case .keyBindingResponse: return .message(name, AAP.KeyBindingResponse.self)
        default: return .unknown(name)
        }
    }

    private static func playbackStatus(_ id: Int32) -> MessageCodec {
        let name = AAP.MediaPlaybackStatusMessageId(rawValue: id).description
        switch AAP.MediaPlaybackStatusMessageId(rawValue: id) {
        case .status: return .message(name, AAP.MediaPlaybackStatus.self)
        case .input: return .message(name, AAP.MediaPlaybackInput.self)
        case .metadata: return .message(name, AAP.MediaPlaybackMetadata.self)
        default: return .unknown(name)
        }
    }

    private static func browser(_ id: Int32) -> MessageCodec {
        let name = AAP.MediaBrowserMessageId(rawValue: id).description
        switch AAP.MediaBrowserMessageId(rawValue: id) {
        case .rootNode: return .message(name, AAP.MediaRootNode.self)
        case .sourceNode: return .message(name, AAP.MediaSourceNode.self)
        case .listNode: return .message(name, AAP.MediaListNode.self)
        case .songNode: return .message(name, AAP.MediaSongNode.self)
        case .getNode: return .message(name, AAP.MediaGetNode.self)
        case .browseInput: return .message(name, AAP.MediaBrowserInput.self)
        default: return .unknown(name)
        }
    }

    private static func audioSink(_ id: Int32) -> MessageCodec {
        let name = AAP.MediaMessageId(rawValue: id).description
        switch AAP.MediaMessageId(rawValue: id) {
        case .setup: return .message(name, AAP.MediaSetup.self)
        case .start: return .message(name, AAP.MediaStart.self)
        case .stop: return .message(name, AAP.MediaStop.self)
        case .config: return .message(name, AAP.MediaConfig.self)
        case .ack: return .message(name, AAP.MediaAck.self)
        case .audioUnderflowNotification: return .message(name, AAP.AudioUnderflowNotification.self)
        default: return .unknown(name)
        }
    }

    private static func dashport(_ id: Int32) -> MessageCodec {
        typealias M = DashportMedia
        let name = M.MessageId(rawValue: id).description
        switch M.MessageId(rawValue: id) {
        case .serverHello: return .message(name, M.ServerHello.self)
        case .carProfile: return .message(name, M.CarProfile.self)
        case .getChildren: return .message(name, M.GetChildren.self)
        case .getItem: return .message(name, M.GetItem.self)
        case .search: return .message(name, M.Search.self)
        case .browseResult: return .message(name, M.BrowseResult.self)
        case .childrenChanged: return .message(name, M.ChildrenChanged.self)
        case .playFromMediaId: return .message(name, M.PlayFromMediaId.self)
        case .playFromSearch: return .message(name, M.PlayFromSearch.self)
        case .playbackCommand: return .message(name, M.PlaybackCommand.self)
        case .commandResult: return .message(name, M.CommandResult.self)
        case .playbackState: return .message(name, M.PlaybackState.self)
        case .mediaItemState: return .message(name, M.MediaItemState.self)
        case .queueState: return .message(name, M.QueueState.self)
        case .sessionError: return .message(name, M.SessionError.self)
        case .getArtwork: return .message(name, M.GetArtwork.self)
        case .artworkResult: return .message(name, M.ArtworkResult.self)
        case .sleepTimerState: return .message(name, M.SleepTimerState.self)
        case .sleepTimerFired: return .message(name, M.SleepTimerFired.self)
        case .remotePlaybackState: return .message(name, M.RemotePlaybackState.self)
        default: return .unknown(name)
        }
    }
}
