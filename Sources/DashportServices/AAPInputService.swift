import DashportLog
import DashportMessages
public import DashportSession

/// The AAP input service (Service field 4) for one car: asks for the media keys and turns their
/// presses into session commands.
///
/// Sans-IO: the connection driver creates one per car once the channel opens, sends what
/// ``start()`` returns, then feeds it the car's messages on the channel. It has no timers (time
/// only comes in with messages). Malformed bodies are logged and ignored; nothing from the car
/// makes it throw or trap.
///
/// Key binding: KEY_BINDING_REQUEST asks for the media keys the car listed in its
/// InputSourceService `keycodes_supported` (intersected with ``SessionCommand/aapMediaKeyCodes``).
/// openauto answers -18 KEYCODE_NOT_BOUND, and then delivers no input at all, when the request
/// holds one code it does not support, so only listed codes are asked for. A car that lists none
/// of them still gets a request for ``fallbackKeyCodes`` (the six standard media keys): it has
/// nothing to lose, and a car that delivers unlisted keys then works. A non-zero
/// KEY_BINDING_RESPONSE status is logged as a warning, never fatal: keys that do arrive still work.
///
/// Volume keys (24 up, 25 down, 164 mute; ``SessionCommand/aapVolumeKeyCodes``) are asked for only
/// while the session declares remote playback, and only those the car lists: bound to the phone
/// they stop reaching the car's own amplifier. ``remotePlaybackChanged(declared:)`` sends a new
/// KEY_BINDING_REQUEST when that changes. A volume key that arrives while not bound is ignored.
///
/// Presses: a press acts once, on its first key-down (down=true); key-ups never act. A down for a
/// key that is already held is auto-repeat or a long-press notice and is ignored when it carries
/// `longpress`, or comes within ``Configuration/repeatWindow`` of that key's previous down. So a
/// long press is one command, the same as a short one (no fast-forward on a held next key), and a
/// car that never sends key-ups still gets one command per press, as long as presses are further
/// apart than the window. Keys that are not media keys are ignored.
public struct AAPInputService: Sendable {
    /// Settings for one car's input service.
    public struct Configuration: Sendable, Hashable {
        /// A key-down for a held key closer than this to the key's previous down is a repeat, not a
        /// new press. Default 1 s (Android starts auto-repeat after 500 ms).
        public var repeatWindow: Duration

        public init(repeatWindow: Duration = .seconds(1)) {
            self.repeatWindow = repeatWindow
        }
    }

    /// What the driver must do, in order.
    public enum Action: Sendable, Hashable {
        /// Send this message to the car (always on this service's channel).
        case send(OutgoingMessage)
        /// Perform this command on the session core; hand the result to ``commandFinished(_:result:)``
        /// if you like (only a rejection is logged).
        case command(SessionCommand, CommandSource)
        /// Log this line (with the driver's peer and channel metadata).
        case log(AAPServiceLog)
    }

    /// What KEY_BINDING_REQUEST asks for when the car listed none of the media keys: play/pause 85,
    /// stop 86, next 87, previous 88, play 126, pause 127.
    public static let fallbackKeyCodes: [Int32] = [85, 86, 87, 88, 126, 127]

    /// The key codes to ask a car for, given what it listed: its media keys in
    /// ``SessionCommand/aapMediaKeyCodes`` order, or ``fallbackKeyCodes`` when it listed none.
    public static func keyCodesToRequest(carKeyCodes: [Int32], volumeKeys: Bool = false) -> [Int32] {
        let listed = Set(carKeyCodes)
        let media = SessionCommand.aapMediaKeyCodes.filter { listed.contains($0) }
        let volume = volumeKeys ? SessionCommand.aapVolumeKeyCodes.filter { listed.contains($0) } : []
        return (media.isEmpty ? fallbackKeyCodes : media) + volume
    }

    /// The channel the car assigned to this service in its discovery response.
    public let channel: UInt8
    /// Who the car is, for ``CommandSource/aapKey(car:)``.
    public let car: String
    public let configuration: Configuration
    /// The key codes the last KEY_BINDING_REQUEST asked for.
    public private(set) var requestedKeyCodes: [Int32]
    /// The key codes the car listed in its descriptor.
    public let carKeyCodes: [Int32]
    /// Whether the volume keys are part of the binding (remote playback declared, car lists them).
    public var volumeKeysBound: Bool { requestedKeyCodes.contains { SessionCommand.aapVolumeKeyCodes.contains($0) } }

    /// Media keys currently held, with the time of their latest down (at most one entry per media key).
    var held: [Int32: Duration] = [:]

    /// A service for the channel `channel` of the car `car`, which listed `carKeyCodes` in its
    /// InputSourceService descriptor.
    /// `remotePlayback`: whether the session declares remote playback now (volume keys asked for).
    public init(
        channel: UInt8, car: String, carKeyCodes: [Int32], remotePlayback: Bool = false,
        configuration: Configuration = Configuration()
    ) {
        self.channel = channel
        self.car = car
        self.carKeyCodes = carKeyCodes
        self.configuration = configuration
        self.requestedKeyCodes = Self.keyCodesToRequest(carKeyCodes: carKeyCodes, volumeKeys: remotePlayback)
    }

    /// The session declared or withdrew remote playback: a new KEY_BINDING_REQUEST when that adds or
    /// removes keys the car listed; nothing otherwise.
    public mutating func remotePlaybackChanged(declared: Bool) -> [Action] {
        let codes = Self.keyCodesToRequest(carKeyCodes: carKeyCodes, volumeKeys: declared)
        guard codes != requestedKeyCodes else { return [] }
        requestedKeyCodes = codes
        held = held.filter { !SessionCommand.aapVolumeKeyCodes.contains($0.key) }
        return start()
    }

    /// The channel is open: the KEY_BINDING_REQUEST to send.
    public func start() -> [Action] {
        let request = AAP.KeyBindingRequest(keycodes: requestedKeyCodes)
        return [
            .send(
                OutgoingMessage(
                    channel: channel, messageId: UInt16(aap: AAP.InputMessageId.keyBindingRequest.rawValue), message: request))
        ]
    }

    /// A message from the car on this channel: INPUT_REPORT key events become commands,
    /// KEY_BINDING_RESPONSE is logged; anything else, or a body that does not decode, is logged
    /// and ignored. Touch and other events in an INPUT_REPORT are ignored.
    public mutating func receive(messageId: UInt16, body: [UInt8], now: Duration) -> [Action] {
        switch messageId {
        case UInt16(aap: AAP.InputMessageId.inputReport.rawValue):
            do {
                let report = try AAP.InputReport(serializedBytes: body)
                return (report.keyEvent?.keys ?? []).compactMap { key(_: $0, now: now) }
            } catch {
                return [.log(.undecodable("INPUT_REPORT", messageId: messageId, error))]
            }
        case UInt16(aap: AAP.InputMessageId.keyBindingResponse.rawValue):
            do {
                let response = try AAP.KeyBindingResponse(serializedBytes: body)
                return [.log(bindingOutcome(response.status, messageId: messageId))]
            } catch {
                return [.log(.undecodable("KEY_BINDING_RESPONSE", messageId: messageId, error))]
            }
        default:
            return [.log(.unexpected(messageId: messageId, on: "input"))]
        }
    }

    /// The session core's answer to a command this service asked for; a rejection is logged.
    public func commandFinished(_ command: SessionCommand, result: CommandResult) -> [Action] {
        AAPServiceLog.outcome(of: command, result).map { [.log($0)] } ?? []
    }

    /// One key of a KeyEvent: the command for a new press of a media key, a log line for a key
    /// that is not one, nothing for key-ups and repeats.
    mutating func key(_ key: AAP.KeyEvent.Key, now: Duration) -> Action? {
        guard let code = Int32(exactly: key.keycode), let command = SessionCommand.fromAAPKeyCode(code) else {
            return .log(AAPServiceLog(level: .debug, message: "key \(key.keycode) is not a media key, ignored"))
        }
        if SessionCommand.aapVolumeKeyCodes.contains(code), !volumeKeysBound {
            return key.down ? .log(AAPServiceLog(level: .debug, message: "volume key \(code) without remote playback, ignored")) : nil
        }
        guard key.down else {
            held[code] = nil
            return nil
        }
        if let previous = held[code], key.longpress == true || now - previous < configuration.repeatWindow {
            held[code] = now
            return nil
        }
        held[code] = now
        return .command(command, .aapKey(car: car))
    }

    /// The log line for the car's answer to our key binding request.
    func bindingOutcome(_ status: AAP.MessageStatus, messageId: UInt16) -> AAPServiceLog {
        let codes = requestedKeyCodes.map(String.init).joined(separator: ",")
        guard status != .success else {
            return AAPServiceLog(level: .info, message: "car bound media keys \(codes)", messageId: messageId)
        }
        return AAPServiceLog(
            level: .warning,
            message: "car refused key binding for \(codes) (status \(status.rawValue) \(status)); media keys may not arrive",
            messageId: messageId)
    }
}
