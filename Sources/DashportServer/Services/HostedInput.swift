import DashportLink
import DashportServices
import DashportSession

/// The AAP input service (Service field 4) as a car connection hosts it: the media keys become
/// session commands, and the volume keys are bound while the session declares remote playback.
struct HostedInput: HostedService {
    enum Input: Sendable {
        /// The session declared (true) or withdrew remote playback.
        case remotePlayback(declared: Bool)
        case commandFinished(SessionCommand, CommandResult)
    }

    var service: AAPInputService
    /// Remote playback as the service was last told (it hears only changes).
    var remotePlaybackDeclared = false

    static func make(for service: CarService, host: ServiceHost, now: Duration) -> (Self, [OutgoingMessage])? {
        guard case .input(let keycodes) = service.kind else { return nil }
        let hosted = HostedInput(service: AAPInputService(channel: service.channel, car: host.carName, carKeyCodes: keycodes))
        // Each remote-playback update is posted; `handle` passes on only the changes (the
        // subscription's replay tells the new service the current one).
        let session = host.core.session
        host.attach { post in
            let id = await session.subscribe { update in
                guard case .remotePlayback(let remote) = update else { return true }
                return post(Input.remotePlayback(declared: remote != nil))
            }
            return { await session.unsubscribe(id) }
        }
        return (hosted, hosted.perform(hosted.service.start(), host: host))
    }

    mutating func receive(channel: UInt8, messageId: UInt16, body: [UInt8], host: ServiceHost, now: Duration) -> [OutgoingMessage] {
        perform(service.receive(messageId: messageId, body: body, now: now), host: host)
    }

    mutating func handle(_ payload: any Sendable, host: ServiceHost, now: Duration) -> [OutgoingMessage] {
        guard let input = payload as? Input else { return [] }
        switch input {
        case .remotePlayback(let declared):
            guard declared != remotePlaybackDeclared else { return [] }
            remotePlaybackDeclared = declared
            return perform(service.remotePlaybackChanged(declared: declared), host: host)
        case .commandFinished(let command, let result):
            logRejection(command, result, host: host)
            return perform(service.commandFinished(command, result: result), host: host)
        }
    }

    private func perform(_ actions: [AAPInputService.Action], host: ServiceHost) -> [OutgoingMessage] {
        var out: [OutgoingMessage] = []
        for action in actions {
            switch action {
            case .send(let message): out.append(message)
            case .command(let command, let source):
                host.perform(command, from: source) { Input.commandFinished(command, $0) }
            case .log(let entry): entry.write(to: host.logger)
            }
        }
        return out
    }
}
