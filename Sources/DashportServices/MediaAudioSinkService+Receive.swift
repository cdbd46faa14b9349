import DashportLog
import DashportMessages

extension MediaAudioSinkService {
    static let configId = UInt16(aap: AAP.MediaMessageId.config.rawValue)
    static let ackId = UInt16(aap: AAP.MediaMessageId.ack.rawValue)
    static let underflowId = UInt16(aap: AAP.MediaMessageId.audioUnderflowNotification.rawValue)

    /// A message from the car on the sink's channel: CONFIG (the answer to SETUP), ACK, and
    /// AUDIO_UNDERFLOW_NOTIFICATION; anything else, or a body that does not decode, is logged and
    /// ignored (and changes nothing).
    public mutating func receive(messageId: UInt16, body: [UInt8], now: Duration) -> [Action] {
        switch messageId {
        case Self.configId:
            do {
                return config(try AAP.MediaConfig(serializedBytes: body))
            } catch {
                return [.log(.undecodable("CONFIG", messageId: messageId, error))]
            }
        case Self.ackId:
            do {
                acknowledge(try AAP.MediaAck(serializedBytes: body))
                return []
            } catch {
                return [.log(.undecodable("ACK", messageId: messageId, error))]
            }
        case Self.underflowId:
            do {
                let notification = try AAP.AudioUnderflowNotification(serializedBytes: body)
                underflows += 1
                let session = notification.sessionId.map { "stream \($0)" } ?? "a stream"
                return [
                    .log(
                        AAPServiceLog(
                            level: .warning, message: "the car ran out of audio in \(session) (\(underflows) so far)",
                            messageId: messageId))
                ]
            } catch {
                return [.log(.undecodable("AUDIO_UNDERFLOW_NOTIFICATION", messageId: messageId, error))]
            }
        default:
            return [
                .log(AAPServiceLog(level: .debug, message: "message not handled on the media sink channel, ignored", messageId: messageId))
            ]
        }
    }

    /// CONFIG: READY makes the sink ready with the car's window (0 or absent `max_unacked` is 1)
    /// and starts a stream if the session already plays with focus; WAIT keeps waiting.
    mutating func config(_ config: AAP.MediaConfig) -> [Action] {
        let id = Self.configId
        guard state != .closed else {
            return [.log(AAPServiceLog(level: .warning, message: "CONFIG before SETUP, ignored", messageId: id))]
        }
        let indices = config.configurationIndices.map(String.init).joined(separator: ",")
        switch config.status {
        case .ready:
            windowSize = max(1, Int(clamping: config.maxUnacked ?? 0))
            if state == .awaitingConfig { state = .ready }
            let line = AAPServiceLog(
                level: .info,
                message:
                    "media sink ready: max_unacked \(config.maxUnacked.map(String.init) ?? "absent") (window \(windowSize)), configuration_indices [\(indices)]",
                messageId: id)
            return [.log(line)] + startIfPossible()
        case .wait:
            let waiting = state == .awaitingConfig
            return [
                .log(
                    AAPServiceLog(
                        level: .info,
                        message: waiting
                            ? "the car asks to wait (CONFIG WAIT), configuration_indices [\(indices)]"
                            : "CONFIG WAIT after READY, ignored",
                        messageId: id))
            ]
        default:
            return [
                .log(
                    AAPServiceLog(level: .warning, message: "CONFIG with unknown status \(config.status.rawValue), ignored", messageId: id))
            ]
        }
    }

    /// ACK: credits `min(ack, outstanding)` (an absent `ack` is 1; a cumulative value just opens
    /// the window). ACKs naming an older stream (openauto sends -1 after STOP) are credited too.
    mutating func acknowledge(_ ack: AAP.MediaAck) {
        acks += 1
        if state == .started {
            ackedSinceStart = true
            ackDeadline = nil
        }
        let credit = min(Int(clamping: ack.ack ?? 1), outstanding)
        outstanding -= credit
    }

    /// An AUDIO_FOCUS_NOTIFICATION (control channel, id 19). GAIN, GAIN_TRANSIENT and
    /// GAIN_MEDIA_ONLY: focus held, full gain; a stream starts if the session plays, and a session
    /// the service paused is resumed. LOSS and LOSS_TRANSIENT: the stream stops and a playing
    /// session is paused (except the LOSS answering our RELEASE, which is expected).
    /// LOSS_TRANSIENT_CAN_DUCK: the samples are attenuated to ``Configuration/duckGain``.
    /// Other states, and bodies that do not decode, are logged and ignored.
    public mutating func focusNotification(body: [UInt8], now: Duration) -> [Action] {
        let id = Self.focusNotificationId
        let notification: AAP.AudioFocusNotification
        do {
            notification = try AAP.AudioFocusNotification(serializedBytes: body)
        } catch {
            return [.log(.undecodable("AUDIO_FOCUS_NOTIFICATION", messageId: id, error))]
        }
        let focus = notification.focusState
        switch focus {
        case .gain, .gainTransient, .gainMediaOnly:
            // A GAIN comes after the answers to any RELEASE we sent: none is still owed.
            releasesUnanswered = 0
            gainRequested = false
            focusHeld = true
            gain = 1
            var actions = [Action.log(AAPServiceLog(level: .info, message: "audio focus \(focus)", messageId: id))]
            if pausedByFocus {
                pausedByFocus = false
                sessionPlaying = true
                actions += startIfPossible()
                actions.append(.resumeSession)
            } else {
                actions += startIfPossible()
            }
            return actions
        case .lossTransientCanDuck:
            gain = min(1, max(0, configuration.duckGain))
            return [.log(AAPServiceLog(level: .info, message: "audio focus \(focus): playing on at gain \(gain)", messageId: id))]
        case .loss, .lossTransient:
            return loss(focus, unsolicited: notification.unsolicited == true)
        default:
            return [.log(AAPServiceLog(level: .notice, message: "audio focus \(focus) is not media focus, ignored", messageId: id))]
        }
    }

    /// LOSS or LOSS_TRANSIENT: the answer to our RELEASE, or the car taking focus away.
    mutating func loss(_ focus: AAP.AudioFocusNotification.State, unsolicited: Bool) -> [Action] {
        let id = Self.focusNotificationId
        focusHeld = false
        gain = 1
        if releasesUnanswered > 0, !unsolicited {
            releasesUnanswered -= 1
            return [.log(AAPServiceLog(level: .debug, message: "audio focus \(focus) answers our RELEASE", messageId: id))]
        }
        gainRequested = false
        var actions = [Action.log(AAPServiceLog(level: .notice, message: "the car took audio focus (\(focus))", messageId: id))]
        actions += stop(because: "audio focus \(focus)")
        if sessionPlaying {
            sessionPlaying = false
            pausedByFocus = true
            actions.append(.pauseSession)
        }
        return actions
    }

    // MARK: - Time

    /// When ``tick(now:)`` is due: the ACK timeout of a stream that sent a packet and got no ACK
    /// yet; nil otherwise (there is no timer per packet).
    public var nextDeadline: Duration? { ackDeadline }

    /// The clock moved on: a stream whose first packet got no ACK within
    /// ``Configuration/ackTimeout`` goes ackless (logged once; it stays so for the channel).
    public mutating func tick(now: Duration) -> [Action] {
        guard let deadline = ackDeadline, now >= deadline else { return [] }
        ackDeadline = nil
        guard state == .started, !ackless, !ackedSinceStart else { return [] }
        ackless = true
        outstanding = 0
        return [
            .log(
                AAPServiceLog(
                    level: .warning,
                    message: "no ACK within \(configuration.ackTimeout) of the first packet; streaming without ACKs from now on"))
        ]
    }
}
