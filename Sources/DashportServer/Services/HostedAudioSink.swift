import DashportLink
import DashportLog
import DashportMessages
import DashportServices
import DashportSession

/// The car's PCM media audio sink (Service field 3, `audio_type MEDIA`) as a car connection hosts
/// it: the sans-IO ``MediaAudioSinkService`` (focus, SETUP/CONFIG, START/STOP, the window), fed
/// the session's play state and the server's one audio stream (``AudioFanout``).
///
/// The fan-out wakes the car's worker when packets are made (coalesced: one wake-up in the
/// mailbox, never a queued input per packet); the worker then reads, from its own cursor, as many
/// packets as the car's window allows and sends them as DATA through the car's bounded outbound
/// path. A car whose window stays shut (a stuck head unit) or that stops reading its socket falls
/// behind and skips packets, counted here and shown by `dashport ctl cars`; it holds no audio of
/// its own and delays no other car.
struct HostedAudioSink: HostedService {
    enum Input: Sendable {
        case playback(PlaybackStatus)
        case commandFinished(SessionCommand, CommandResult)
    }

    var service: MediaAudioSinkService
    let fanout: AudioFanout
    /// The next packet of the stream this car reads.
    var cursor: UInt64 = 0
    let subscription: UInt64
    var status: PlaybackStatus = .stopped
    /// Statistics as last shown to `dashport ctl cars`.
    var shown: MediaAudioSinkService.Statistics?

    static func make(for service: CarService, host: ServiceHost, now: Duration) -> (Self, [OutgoingMessage])? {
        guard service.isPCMMediaSink, case .mediaSink(_, _, let configs) = service.kind, let fanout = host.audio else { return nil }
        var sink = MediaAudioSinkService(
            channel: service.channel, car: host.carName, audioConfigs: configs,
            protocolAtLeast5: (host.version?.major ?? 1) >= 5)
        let first = sink.open(now: now)
        let subscription = fanout.subscribe(host.waker)
        let session = host.core.session
        host.attach { post in
            let id = await session.subscribe { update in
                guard case .playbackState(let state) = update else { return true }
                return post(Input.playback(state.status))
            }
            return { await session.unsubscribe(id) }
        }
        var hosted = HostedAudioSink(service: sink, fanout: fanout, subscription: subscription)
        return (hosted, hosted.perform(first, host: host, now: now))
    }

    var controlMessageIds: Set<UInt16> { [UInt16(AAP.ControlMessageType.audioFocusNotification.rawValue)] }

    mutating func receive(channel: UInt8, messageId: UInt16, body: [UInt8], host: ServiceHost, now: Duration) -> [OutgoingMessage] {
        let actions =
            channel == 0 ? service.focusNotification(body: body, now: now) : service.receive(messageId: messageId, body: body, now: now)
        return perform(actions, host: host, now: now) + stream(host: host, now: now)
    }

    mutating func handle(_ payload: any Sendable, host: ServiceHost, now: Duration) -> [OutgoingMessage] {
        if payload is ServiceWake { return stream(host: host, now: now) }
        guard let input = payload as? Input else { return [] }
        switch input {
        case .playback(let next):
            guard next != status else { return [] }
            let previous = status
            status = next
            let actions: [MediaAudioSinkService.Action]
            switch next {
            case .playing, .buffering:
                actions = previous == .playing || previous == .buffering ? [] : service.playbackChanged(playing: true, now: now)
            case .paused:
                actions = service.playbackChanged(playing: false, now: now)
            case .stopped, .error:
                // Playback really ended: STOP, and the car gets its focus back.
                actions = service.playbackEnded(now: now)
            }
            return perform(actions, host: host, now: now) + stream(host: host, now: now)
        case .commandFinished(let command, let result):
            logRejection(command, result, host: host)
            return []
        }
    }

    mutating func tick(host: ServiceHost, now: Duration) -> [OutgoingMessage] {
        perform(service.tick(now: now), host: host, now: now) + stream(host: host, now: now)
    }

    var nextDeadline: Duration? { service.nextDeadline }

    mutating func closed(host: ServiceHost) {
        fanout.unsubscribe(subscription)
    }

    /// Sends what the car's window takes of what the stream made since this car's cursor.
    private mutating func stream(host: ServiceHost, now: Duration) -> [OutgoingMessage] {
        let room = service.sendableCount
        guard room > 0 else { return [] }
        let read = fanout.read(from: &cursor, limit: room)
        if read.skipped > 0 { service.dropped(count: read.skipped) }
        var out: [OutgoingMessage] = []
        for packet in read.packets {
            out += perform(service.send(packet: packet, now: now), host: host, now: now)
        }
        report(host: host)
        return out
    }

    private mutating func perform(_ actions: [MediaAudioSinkService.Action], host: ServiceHost, now: Duration) -> [OutgoingMessage] {
        var out: [OutgoingMessage] = []
        for action in actions {
            switch action {
            case .send(let message):
                if message.messageId == Self.startId, message.channel == service.channel {
                    cursor = fanout.joinCursor  // a new stream for this car begins where the stream is now
                }
                out.append(message)
            case .pauseSession:
                host.perform(.pause, from: .aapAudioFocus(car: host.carName)) { Input.commandFinished(.pause, $0) }
            case .resumeSession:
                host.perform(.play, from: .aapAudioFocus(car: host.carName)) { Input.commandFinished(.play, $0) }
            case .log(let entry):
                entry.write(to: host.logger)
            }
        }
        report(host: host)
        return out
    }

    /// Tells `dashport ctl cars` how this car's audio goes, when its state or window changes, and
    /// every 64 packets otherwise (the registry is shared: not on every packet).
    private mutating func report(host: ServiceHost) {
        let now = service.statistics
        if let shown, shown.state == now.state, shown.sessionId == now.sessionId, shown.ackless == now.ackless,
            now.packetsSent - shown.packetsSent < 64, now.dropped == shown.dropped, now.underflows == shown.underflows
        {
            return
        }
        shown = now
        host.updateCar { $0.audio = ConnectedCar.AudioSummary(now) }
    }

    static let startId = UInt16(AAP.MediaMessageId.start.rawValue)
}
