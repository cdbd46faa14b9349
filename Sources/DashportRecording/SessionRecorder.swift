import FoundationEssentials
import Glibc
public import DashportClock
public import DashportLink
import DashportMessages
import Synchronization

/// Collects the messages of one session from link taps (`WireTap`), from the car side or the
/// server side, for any number of cars, and writes them as a ``SessionRecording``.
///
/// Each car's channels are named by the services its SERVICE_DISCOVERY_RESPONSE listed, as the
/// recorder saw it go by. Media audio on its audio sinks is summarised (``AudioSummary``), never
/// recorded as PCM. Memory is capped (``maxBytes``): past the cap the recording stops and
/// says so in its description, and the session itself is unaffected.
public final class SessionRecorder: Sendable {
    /// Which end of the link the taps sit on.
    public enum Side: Sendable {
        /// The car: what the link sends is the car's.
        case car
        /// The server: what the link receives is the car's.
        case server
    }

    public let side: Side
    public let maxBytes: Int
    /// What each line's time since the recording began is read from.
    private let clock: any DashportClock
    private let origin: ClockInstant
    private let state: Mutex<State>

    struct State {
        var recording: SessionRecording
        var services: [Int: [UInt8: RecordedService]] = [:]
        var bytes = 0
        var truncated = false
        var cars = 0
        /// Each car's audio sink channels, and the summary being filled per car and channel.
        var audioChannels: [Int: Set<UInt8>] = [:]
        var audio: [AudioKey: AudioSummary.Tally] = [:]
        var audioTimes: [AudioKey: Int64] = [:]
    }

    struct AudioKey: Hashable {
        var car: Int
        var channel: UInt8
    }

    public init(side: Side, description: String, maxBytes: Int = 64 << 20, clock: any DashportClock = SystemClock()) {
        self.side = side
        self.maxBytes = maxBytes
        self.clock = clock
        self.origin = clock.now
        self.state = Mutex(State(recording: SessionRecording(description: description)))
    }

    /// A new car of this session: the number its lines carry (1, 2, ...).
    public func addCar() -> Int {
        state.withLock { state in
            state.cars += 1
            return state.cars
        }
    }

    /// The tap for car `car`'s link.
    public func tap(car: Int) -> @Sendable (TappedMessage) -> Void {
        { [self] message in record(message, car: car) }
    }

    /// Writes what was recorded so far to `path` atomically (a temporary file, then a rename).
    public func write(to path: String) throws {
        try SessionRecording.write(recording, to: path)
    }

    /// What was recorded so far.
    /// What was recorded so far, with the audio summaries still being filled.
    public var recording: SessionRecording {
        state.withLock { state in
            var recording = state.recording
            for (key, tally) in state.audio.sorted(by: { ($0.key.car, $0.key.channel) < ($1.key.car, $1.key.channel) })
            where tally.packets > 0 || tally.acks > 0 {
                recording.entries.append(Self.summaryEntry(key, tally, timeMs: state.audioTimes[key] ?? 0))
            }
            return recording
        }
    }

    static func summaryEntry(_ key: AudioKey, _ tally: AudioSummary.Tally, timeMs: Int64) -> RecordedMessage {
        RecordedMessage(
            car: key.car, timeMs: timeMs, direction: .server, channel: key.channel, service: .audioSink,
            messageId: AudioSummary.dataId, name: AudioSummary.name, encrypted: true, body: tally.json)
    }

    /// DATA or ACK on an audio sink: counted into the channel's summary, which becomes a line when full.
    private static func summarise(_ message: TappedMessage, car: Int, fromCar: Bool, millis: Int64, _ state: inout State) {
        let key = AudioKey(car: car, channel: message.channel)
        var tally = state.audio[key] ?? AudioSummary.Tally()
        if message.messageId == AudioSummary.dataId, !fromCar {
            if tally.isFull {
                state.recording.entries.append(summaryEntry(key, tally, timeMs: state.audioTimes[key] ?? millis))
                tally = AudioSummary.Tally(index: tally.index + 1)
            }
            tally.add(data: message.body)
        } else {
            tally.acks += 1
        }
        state.audio[key] = tally
        state.audioTimes[key] = millis
    }

    public func record(_ message: TappedMessage, car: Int) {
        let millis = clock.now.milliseconds(since: origin)
        let fromCar = (side == .car) == (message.direction == .sent)
        state.withLock { state in
            guard !state.truncated else { return }
            if message.messageId == AudioSummary.dataId || message.messageId == AudioSummary.ackId,
                state.audioChannels[car]?.contains(message.channel) == true
            {
                Self.summarise(message, car: car, fromCar: fromCar, millis: millis, &state)
                return
            }
            let service: RecordedService = message.channel == 0 ? .control : state.services[car]?[message.channel] ?? .other
            let codec = MessageCatalog.codec(service: service, messageId: message.messageId)
            let body = codec.toJSON(message.body)
            if message.channel == 0, message.messageId == 6, fromCar,
                let response = try? AAP.ServiceDiscoveryResponse(serializedBytes: message.body)
            {
                var table: [UInt8: RecordedService] = [:]
                let services = CarDescription.parse(response).0.services
                for listed in services { table[listed.channel] = RecordedService(listed.kind) }
                state.services[car] = table
                state.audioChannels[car] = Set(services.filter(\.isAudioSink).map(\.channel))
            }
            let entry = RecordedMessage(
                car: car, timeMs: millis, direction: fromCar ? .car : .server, channel: message.channel,
                service: service, messageId: message.messageId, name: codec.name, encrypted: message.encrypted, body: body)
            state.bytes += message.body.count * 2 + 128
            if state.bytes > maxBytes {
                state.truncated = true
                state.recording.description += " (truncated: over \(maxBytes) bytes)"
                return
            }
            state.recording.entries.append(entry)
        }
    }
}
