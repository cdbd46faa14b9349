// FuzzServices: what must hold for the media audio sink's actions (ServicesFuzz+Sink.swift drives it).
import DashportMessages
import DashportServices
import DashportSession

extension ServicesFuzz.SinkRun {
    /// The START configuration index the sink's list calls for, worked out here independently.
    var expectedIndex: UInt32 {
        let index = service.audioConfigs.firstIndex {
            $0.samplingRate == 48_000 && $0.numberOfBits == 16 && $0.numberOfChannels == 2
        }
        return index.map { UInt32($0) } ?? 0
    }

    /// Checks one call's actions against the model and moves the model on, then checks the model
    /// against the service. `opening`: the call was the first `open`; `resuming`: it was a GAIN.
    mutating func step(_ actions: [MediaAudioSinkService.Action], opening: Bool = false, resuming: Bool = false) {
        for action in actions {
            switch action {
            case .send(let message):
                if message.channel == 0, message.messageId == ServicesFuzz.focusRequestId {
                    focusRequest(message.body)
                } else {
                    sinkMessage(message, opening: opening)
                }
            case .pauseSession:
                fuzzCheck(playing && !pausedBySink, "pauseSession while the session was not playing")
                playing = false
                pausedBySink = true
            case .resumeSession:
                fuzzCheck(pausedBySink && resuming, "resumeSession without a pause of ours and a GAIN")
                pausedBySink = false
                playing = true
            case .log(let line):
                fuzzCheck(!line.message.isEmpty, "an empty log line")
            }
        }
        if service.ackless { outstanding = 0 }
        let stats = service.statistics
        fuzzCheck(streaming == (service.state == .started), "state \(service.state), but START/STOP say streaming \(streaming)")
        fuzzCheck(!streaming || (playing && focus && configReady), "streaming (playing \(playing), focus \(focus), ready \(configReady))")
        fuzzCheck(focus == service.focusHeld, "focus held \(service.focusHeld), the car said \(focus)")
        fuzzCheck(playing == service.sessionPlaying, "session playing \(service.sessionPlaying), the driver knows \(playing)")
        fuzzCheck(opened || service.state == .closed, "state \(service.state) without SETUP")
        fuzzCheck(!service.canSend || streaming, "canSend outside START…STOP")
        fuzzCheck(service.gain >= 0 && service.gain <= 1, "gain \(service.gain)")
        fuzzCheck(
            service.ackless || outstanding == service.outstanding,
            "outstanding \(service.outstanding), the driver counts \(outstanding)")
        fuzzCheck(
            stats.packetsSent == packets && stats.bytesSent == bytes && stats.acks == acks && stats.underflows == underflows,
            "statistics \(stats), the driver counts \(packets) packets, \(bytes) bytes, \(acks) ACKs, \(underflows) underflows")
    }

    /// AUDIO_FOCUS_REQUEST: GAIN (never a second one before an answer, never while focus is held)
    /// or RELEASE.
    private mutating func focusRequest(_ body: [UInt8]) {
        guard let request = ServicesFuzz.decode(AAP.AudioFocusRequest.self, body) else { return }
        switch request.audioFocusType {
        case .gain:
            fuzzCheck(!gainAsked && !focus, "a GAIN request while one is unanswered or focus is held")
            gainAsked = true
        case .release:
            focus = false
            gainAsked = false
        default:
            fuzzViolation("focus request \(request.audioFocusType)")
        }
    }

    /// A message on the sink's channel: SETUP once when opening, START/STOP alternating, DATA
    /// between them within the window.
    private mutating func sinkMessage(_ message: OutgoingMessage, opening: Bool) {
        ServicesFuzz.checkSize(message, channel: service.channel)
        switch message.messageId {
        case ServicesFuzz.sinkSetupId:
            fuzzCheck(opening && !opened, "SETUP outside the first open")
            let setup = ServicesFuzz.decode(AAP.MediaSetup.self, message.body)
            fuzzCheck(setup?.type == .audioPcm, "SETUP for \(String(describing: setup?.type))")
            opened = true
        case ServicesFuzz.sinkStartId:
            fuzzCheck(!streaming, "START while a stream runs")
            guard let start = ServicesFuzz.decode(AAP.MediaStart.self, message.body) else { return }
            fuzzCheck(start.sessionId == nextSession, "START session \(start.sessionId), expected \(nextSession)")
            fuzzCheck(start.configurationIndex == expectedIndex, "START configuration \(start.configurationIndex)")
            nextSession += 1
            streaming = true
            outstanding = 0
        case ServicesFuzz.sinkStopId:
            fuzzCheck(streaming && message.body.isEmpty, "STOP without a stream, or with a body")
            streaming = false
        case ServicesFuzz.sinkDataId:
            fuzzCheck(streaming, "DATA outside START…STOP")
            if !service.ackless {
                fuzzCheck(outstanding < service.windowSize, "DATA past the window of \(service.windowSize)")
                outstanding += 1
            }
            packets += 1
            bytes += message.body.count
        default:
            fuzzViolation("the sink sent message \(message.messageId)")
        }
    }
}
