import DashportServices
import DashportSession
import DashportArtwork
import DashportLog

/// Performing what the AAP playback status and input services ask for.
extension CarServices {
    func perform(_ actions: [AAPPlaybackStatusService.Action], service channel: UInt8, now: Duration) -> [OutgoingMessage] {
        var out: [OutgoingMessage] = []
        for action in actions {
            switch action {
            case .send(let message): out.append(message)
            case .command(let command, let source): send(command, source, channel)
            case .fetchArtwork(let uri, let width, let height, let itemId): fetchStatusArtwork(uri, width, height, itemId)
            case .log(let entry): entry.write(to: logger.with("channel", "\(channel)"))
            }
        }
        return out
    }

    func perform(_ actions: [AAPInputService.Action], service channel: UInt8, now: Duration) -> [OutgoingMessage] {
        var out: [OutgoingMessage] = []
        for action in actions {
            switch action {
            case .send(let message): out.append(message)
            case .command(let command, let source): send(command, source, channel)
            case .log(let entry): entry.write(to: logger.with("channel", "\(channel)"))
            }
        }
        return out
    }

    func send(_ command: SessionCommand, _ source: CommandSource, _ channel: UInt8) {
        logger.debug("command from the car", ["channel": "\(channel)", "command": "\(command)"])
        bridge.perform(command, from: source, on: core.session) { .commandFinished(service: channel, command, $0) }
    }

    func fetchStatusArtwork(_ uri: String, _ width: Int, _ height: Int, _ itemId: String) {
        let artwork = core.artwork
        bridge.run {
            guard let key = await artwork.register(uri) else { return .statusArtwork(itemId: itemId, bytes: nil) }
            let image = try? await artwork.image(for: key, width: width, height: height)
            return .statusArtwork(itemId: itemId, bytes: image?.bytes)
        }
    }
}
