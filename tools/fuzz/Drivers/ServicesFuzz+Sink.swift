// FuzzServices: the media audio sink (selector 4). Shared with the services tests.
import DashportMessages
import DashportServices
import DashportSession

extension ServicesFuzz {
    static let sinkSetupId = UInt16(AAP.MediaMessageId.setup.rawValue)
    static let sinkStartId = UInt16(AAP.MediaMessageId.start.rawValue)
    static let sinkStopId = UInt16(AAP.MediaMessageId.stop.rawValue)
    static let sinkConfigId = UInt16(AAP.MediaMessageId.config.rawValue)
    static let sinkAckId = UInt16(AAP.MediaMessageId.ack.rawValue)
    static let sinkUnderflowId = UInt16(AAP.MediaMessageId.audioUnderflowNotification.rawValue)
    static let sinkDataId = UInt16(AAP.MediaMessageId.data.rawValue)
    static let sinkCodecConfigId = UInt16(AAP.MediaMessageId.codecConfig.rawValue)
    static let focusRequestId = UInt16(AAP.ControlMessageType.audioFocusRequest.rawValue)

    /// The media audio sink with a model of what the car and the session were told.
    ///
    /// Config: flags (bit 0 protocol ≥ 5), the channel, up to 3 audio configs, ack timeout, max lead
    /// and duck gain from edge values. Ops (`op % 8`): 0 CONFIG from fields, 1 ACK from fields,
    /// 2 a focus notification from fields, 3 any id and body (or a raw focus body), 4 the session
    /// plays or pauses, 5 playback ends or `open` again, 6 the pump offers packets (asking
    /// `canSend`, or not), 7 the clock moves with a tick at every deadline.
    /// Checks: focus requests only on channel 0 (GAIN or RELEASE, never two GAINs without an answer),
    /// everything else on the sink's channel with the ids a phone sends (never CODEC_CONFIG); SETUP
    /// once, first, PCM; START and STOP alternate, START ids count from 0 with the 48k/16/2 index;
    /// DATA only between them, well-formed, within the window unless ackless; after every step a
    /// running stream means the session plays, focus is held and CONFIG said READY; pause and
    /// resume only for a focus change; the counters match what went.
    struct SinkRun {
        var service: MediaAudioSinkService
        var reader: Reader
        var now = Duration.seconds(1000)
        /// What the driver knows: the sink opened, CONFIG READY came, focus is held, the session plays.
        var opened = false, configReady = false, focus = false, playing = false
        var streaming = false, pausedBySink = false, gainAsked = false
        var nextSession: Int32 = 0, outstanding = 0
        var packets = 0, bytes = 0, acks = 0, underflows = 0

        init(_ r: inout Reader) {
            let flags = r.byte()
            let channel = r.byte()
            let menu = [
                AAP.AudioConfiguration(samplingRate: 48_000, numberOfBits: 16, numberOfChannels: 2),
                AAP.AudioConfiguration(samplingRate: 16_000, numberOfBits: 16, numberOfChannels: 1),
                AAP.AudioConfiguration(samplingRate: 48_000, numberOfBits: 16, numberOfChannels: 1), AAP.AudioConfiguration(),
            ]
            let configs = (0..<Int(r.byte() % 4)).map { _ in r.pick(menu) }
            let configuration = MediaAudioSinkService.Configuration(
                ackTimeout: .milliseconds(r.pick([2000, 0, 50, -5])), maxLead: r.pick([2, 0, 1]),
                duckGain: r.pick([0.3, 0, 1, 0.5, -1, 2]))
            service = MediaAudioSinkService(
                channel: channel, car: car, audioConfigs: configs, protocolAtLeast5: flags & 1 != 0, configuration: configuration)
            reader = r
        }

        mutating func run() {
            fuzzCheck(service.state == .closed && !service.canSend, "a new sink is not closed")
            if reader.bool() { step(service.open(now: now), opening: true) }
            while !reader.isAtEnd {
                let op = reader.byte()
                switch op % 8 {
                case 0:
                    let config = AAP.MediaConfig(
                        status: AAP.MediaConfig.Status(rawValue: reader.pick([2, 1, 0, 7])),
                        maxUnacked: reader.maybe { $0.pick([0, 1, 4, 4096, .max]) }, configurationIndices: reader.bool() ? [0, 1] : [])
                    deliver(ServicesFuzz.sinkConfigId, config.serializedBytes())
                case 1:
                    let session = reader.pick([service.sessionId ?? 0, -1, 0, 7])
                    let ack = AAP.MediaAck(sessionId: session, ack: reader.maybe { $0.pick([1, 0, 2, 10, .max]) })
                    deliver(ServicesFuzz.sinkAckId, ack.serializedBytes())
                case 2:
                    let state = AAP.AudioFocusNotification.State(rawValue: Int32(reader.byte() % 9))
                    focus(AAP.AudioFocusNotification(focusState: state, unsolicited: reader.maybe { $0.bool() }).serializedBytes())
                case 3:
                    if reader.bool() {
                        focus(reader.take(reader.length()))
                    } else {
                        let id = reader.pick([
                            ServicesFuzz.sinkConfigId, ServicesFuzz.sinkAckId, ServicesFuzz.sinkUnderflowId, ServicesFuzz.sinkDataId,
                        ]) { $0.u16() }
                        deliver(id, reader.take(reader.length()))
                    }
                case 4:
                    let play = reader.bool()
                    playing = play
                    if play { pausedBySink = false }
                    step(service.playbackChanged(playing: play, now: now))
                case 5:
                    if reader.bool() {
                        step(service.open(now: now), opening: !opened)
                    } else {
                        playing = false
                        pausedBySink = false
                        step(service.playbackEnded(now: now))
                    }
                case 6:
                    offer(count: Int(reader.byte() % 8), ignoringCanSend: reader.bool())
                default:
                    advance(by: .milliseconds(Int64(reader.u16())))
                }
            }
            advance(by: .seconds(5))
        }

        /// A message from the car on the sink's channel; the model learns what it said.
        mutating func deliver(_ id: UInt16, _ body: [UInt8]) {
            if id == ServicesFuzz.sinkConfigId, opened, let config = try? AAP.MediaConfig(serializedBytes: body), config.status == .ready {
                configReady = true
            }
            if id == ServicesFuzz.sinkAckId, let ack = try? AAP.MediaAck(serializedBytes: body) {
                acks += 1
                outstanding -= min(Int(clamping: ack.ack ?? 1), outstanding)
            }
            if id == ServicesFuzz.sinkUnderflowId, (try? AAP.AudioUnderflowNotification(serializedBytes: body)) != nil { underflows += 1 }
            step(service.receive(messageId: id, body: body, now: now))
        }

        /// An AUDIO_FOCUS_NOTIFICATION; GAIN types give focus, LOSS types take it.
        mutating func focus(_ body: [UInt8]) {
            var gain = false
            if let notification = try? AAP.AudioFocusNotification(serializedBytes: body) {
                switch notification.focusState {
                case .gain, .gainTransient, .gainMediaOnly:
                    focus = true
                    gain = true
                    gainAsked = false
                case .loss, .lossTransient:
                    focus = false
                    gainAsked = false
                default: break
                }
            }
            step(service.focusNotification(body: body, now: now), resuming: gain)
        }

        /// The pump offers packets, asking `canSend` first (counting the others as dropped) or not.
        mutating func offer(count: Int, ignoringCanSend: Bool) {
            for index in 0..<count {
                let fill = reader.byte()
                let size = reader.pick([SessionAudioFormat.bytesPerPacket, 0, 1, 7])
                let pcm = Self.pcm[Int(fill >> 1)]
                let packet = AudioPacket(
                    timestampMicros: UInt64(reader.u16()) * 1000 + UInt64(index),
                    pcm: size == pcm.count ? pcm : Array(pcm.prefix(size)))
                guard ignoringCanSend || service.canSend else {
                    service.dropped(count: 1)
                    continue
                }
                let gain = service.gain
                let actions = service.send(packet: packet, now: now)
                for action in actions {
                    guard case .send(let message) = action, message.messageId == ServicesFuzz.sinkDataId else { continue }
                    checkData(message.body, packet, gain: gain)
                }
                step(actions)
            }
        }

        /// A packet's PCM for each odd multiplier `m` (by `m >> 1`): byte `i` is `i &* m`, truncated.
        /// Made once: made per packet, byte by byte, the pump's packets were most of a sink
        /// input's time (every byte through a comparison hook).
        static let pcm: [[UInt8]] = (0..<128).map { half in
            (0..<SessionAudioFormat.bytesPerPacket).map { UInt8(truncatingIfNeeded: $0 &* (2 * half + 1)) }
        }

        /// A DATA body: the big-endian timestamp, then the PCM as it was (gain 1) or attenuated.
        func checkData(_ body: [UInt8], _ packet: AudioPacket, gain: Double) {
            fuzzCheck(body.count == 8 + packet.pcm.count, "a DATA body of \(body.count) bytes for \(packet.pcm.count) of PCM")
            guard body.count == 8 + packet.pcm.count else { return }
            let stamp = body.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            fuzzCheck(stamp == packet.timestampMicros, "DATA timestamp \(stamp), packet \(packet.timestampMicros)")
            guard gain < 1 else {
                fuzzCheck(AudioInputFuzz.same(body.dropFirst(8), packet.pcm[...]), "PCM changed at gain \(gain)")
                return
            }
            let pcm = Array(body.dropFirst(8))
            for index in stride(from: 0, to: pcm.count - 1, by: 2) {
                let before = Int(Int16(bitPattern: UInt16(packet.pcm[index]) | UInt16(packet.pcm[index + 1]) << 8))
                let after = Int(Int16(bitPattern: UInt16(pcm[index]) | UInt16(pcm[index + 1]) << 8))
                fuzzCheck(abs(after) <= abs(before) && after * before >= 0, "sample \(before) became \(after) at gain \(gain)")
            }
        }

        /// Moves the clock, ticking at every deadline on the way.
        mutating func advance(by interval: Duration) {
            let target = now + interval
            var ticks = 0
            while let next = service.nextDeadline, next <= target {
                ticks += 1
                guard ticks < 1000 else {
                    fuzzViolation("the sink's deadlines never end")
                    return
                }
                now = max(now, next)
                tick()
            }
            now = target
            tick()
        }

        private mutating func tick() {
            step(service.tick(now: now))
            if let next = service.nextDeadline { fuzzCheck(next > now, "nextDeadline \(next) is not after a tick at \(now)") }
        }
    }
}
