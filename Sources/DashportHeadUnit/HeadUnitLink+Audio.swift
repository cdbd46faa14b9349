import DashportLink
import DashportLog

/// The media audio sink's outputs, carried out on the link.
extension HeadUnitLink {
    /// Sends what the sink asks (encrypted: TLS is up whenever it has something to say), reports
    /// its events (violations logged too) and hands decoded PCM to ``audioOutput``.
    func perform(_ outputs: [MediaSinkOutput], _ out: inout HeadUnitOutbox) {
        for output in outputs {
            guard phase != .closed else { return }
            switch output {
            case .send(let channel, let messageId, let body):
                sendMessage(channel: channel, messageId, body, encrypted: true, &out)
            case .event(let event):
                if case .violation(let text) = event { logger.notice("audio sink: phone broke the protocol", ["problem": text]) }
                out.event(.audio(event))
            case .samples(let samples):
                audioOutput?(samples)
            }
        }
    }
}
