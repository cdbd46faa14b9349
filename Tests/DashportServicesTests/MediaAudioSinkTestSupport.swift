import DashportMessages
import DashportSession
import Testing
@testable import DashportServices

// Shared helpers for the media audio sink tests: ids, bodies the car sends, and a sink brought to
// a given point (opened, READY, streaming).

let sinkChannel: UInt8 = 6
let setupId: UInt16 = 0x8000
let startId: UInt16 = 0x8001
let stopId: UInt16 = 0x8002
let configId: UInt16 = 0x8003
let ackId: UInt16 = 0x8004
let underflowId: UInt16 = 0x800B
let dataId: UInt16 = 0x0000
let focusRequestId: UInt16 = 18

let stereo48k = AAP.AudioConfiguration(samplingRate: 48_000, numberOfBits: 16, numberOfChannels: 2)
let mono16k = AAP.AudioConfiguration(samplingRate: 16_000, numberOfBits: 16, numberOfChannels: 1)

/// AUDIO_FOCUS_REQUEST bodies: field 1 = the focus type.
let releaseRequest = OutgoingMessage(channel: 0, messageId: focusRequestId, body: [0x08, 0x04])
let gainRequest = OutgoingMessage(channel: 0, messageId: focusRequestId, body: [0x08, 0x01])

/// START{session_id, configuration_index} as bytes (both fields always written).
func startMessage(session: UInt8, index: UInt8 = 0) -> OutgoingMessage {
    OutgoingMessage(channel: sinkChannel, messageId: startId, body: [0x08, session, 0x10, index])
}

let stopMessage = OutgoingMessage(channel: sinkChannel, messageId: stopId, body: [])

extension MediaAudioSinkService.Action {
    var outgoing: OutgoingMessage? {
        if case .send(let message) = self { message } else { nil }
    }
    var logEntry: AAPServiceLog? {
        if case .log(let entry) = self { entry } else { nil }
    }
    /// The action without its log lines: what the driver does to the car and the session.
    var isLog: Bool { logEntry != nil }
}

extension Array where Element == MediaAudioSinkService.Action {
    /// The messages among the actions.
    var sent: [OutgoingMessage] { compactMap(\.outgoing) }
    /// The actions that are not log lines.
    var effects: [MediaAudioSinkService.Action] { filter { !$0.isLog } }
    var logs: [AAPServiceLog] { compactMap(\.logEntry) }
}

func focusBody(_ state: AAP.AudioFocusNotification.State, unsolicited: Bool? = nil) -> [UInt8] {
    AAP.AudioFocusNotification(focusState: state, unsolicited: unsolicited).serializedBytes()
}

func configBody(_ status: AAP.MediaConfig.Status = .ready, maxUnacked: UInt32? = 1, indices: [UInt32] = [0]) -> [UInt8] {
    AAP.MediaConfig(status: status, maxUnacked: maxUnacked, configurationIndices: indices).serializedBytes()
}

func ackBody(session: Int32 = 0, ack: UInt32? = 1) -> [UInt8] {
    AAP.MediaAck(sessionId: session, ack: ack, receiveTimestampNs: [1_764_000_000_000_000_000]).serializedBytes()
}

/// A packet of 8192 bytes: `fill` repeated, or a ramp when nil.
func audioPacket(_ timestamp: UInt64 = 0, fill: [UInt8]? = nil) -> AudioPacket {
    let count = SessionAudioFormat.bytesPerPacket
    guard let fill else { return AudioPacket(timestampMicros: timestamp, pcm: (0..<count).map { UInt8(truncatingIfNeeded: $0) }) }
    return AudioPacket(timestampMicros: timestamp, pcm: (0..<count).map { fill[$0 % fill.count] })
}

extension MediaAudioSinkService {
    /// A sink on ``sinkChannel`` with `configs`, opened (its RELEASE and SETUP discarded).
    static func opened(
        configs: [AAP.AudioConfiguration] = [stereo48k], protocolAtLeast5: Bool = false,
        configuration: Configuration = .init()
    ) -> MediaAudioSinkService {
        var sink = MediaAudioSinkService(
            channel: sinkChannel, car: "car-1", audioConfigs: configs, protocolAtLeast5: protocolAtLeast5,
            configuration: configuration)
        _ = sink.open(now: .zero)
        return sink
    }

    /// An opened sink after CONFIG READY with `maxUnacked`.
    static func ready(
        maxUnacked: UInt32? = 1, protocolAtLeast5: Bool = false, configuration: Configuration = .init()
    ) -> MediaAudioSinkService {
        var sink = opened(protocolAtLeast5: protocolAtLeast5, configuration: configuration)
        _ = sink.receive(messageId: configId, body: configBody(maxUnacked: maxUnacked), now: .zero)
        return sink
    }

    /// A ready sink with focus (the answer to RELEASE, then an unsolicited GAIN) and the session
    /// playing: stream 0 has started.
    static func streaming(
        maxUnacked: UInt32? = 1, protocolAtLeast5: Bool = false, configuration: Configuration = .init()
    ) -> MediaAudioSinkService {
        var sink = ready(maxUnacked: maxUnacked, protocolAtLeast5: protocolAtLeast5, configuration: configuration)
        _ = sink.focusNotification(body: focusBody(.loss), now: .zero)
        _ = sink.focusNotification(body: focusBody(.gain, unsolicited: true), now: .zero)
        let actions = sink.playbackChanged(playing: true, now: .zero)
        #expect(actions.sent == [startMessage(session: 0)])
        return sink
    }
}
