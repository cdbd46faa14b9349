import DashportLink
import DashportMessages

extension MediaSinkClient {
    /// Takes an AUDIO_FOCUS_REQUEST body (control message 18 on channel 0) and answers it as
    /// ``MediaSinkConfiguration/focus`` says: RELEASE → LOSS always; a gain request → GAIN, unless
    /// the mode never answers gains. An undecodable body is a violation and gets no answer.
    public mutating func receiveFocusRequest(_ body: [UInt8], now: Duration) -> [MediaSinkOutput] {
        var out: [MediaSinkOutput] = []
        stats.focusRequests += 1
        guard let request = try? AAP.AudioFocusRequest(serializedBytes: body) else {
            stats.malformed += 1
            violation("AUDIO_FOCUS_REQUEST body of \(body.count) bytes does not decode; not answered", &out)
            out.append(.event(.focusRequested(nil, answer: nil)))
            return out
        }
        let type = request.audioFocusType
        let answer: AAP.AudioFocusNotification.State?
        switch type {
        case .release: answer = .loss
        case .gain, .gainTransient, .gainTransientMayDuck: answer = configuration.focus == .neverAnswerGain ? nil : .gain
        default:
            violation("AUDIO_FOCUS_REQUEST of unknown type \(type.rawValue); not answered", &out)
            answer = nil
        }
        if let answer { sendFocus(answer, unsolicited: false, &out) }
        out.append(.event(.focusRequested(type, answer: answer)))
        return out
    }

    /// Sends what is due at `now`: the scheduled unsolicited focus changes.
    public mutating func tick(now: Duration) -> [MediaSinkOutput] {
        var out: [MediaSinkOutput] = []
        while let first = scheduledFocus.first, first.at <= now {
            scheduledFocus.removeFirst()
            sendFocus(first.state, unsolicited: true, &out)
            out.append(.event(.unsolicitedFocus(first.state)))
        }
        return out
    }

    /// When ``tick(now:)`` must be called next; nil when nothing is scheduled.
    public var nextDeadline: Duration? { scheduledFocus.first?.at }

    /// AUDIO_FOCUS_NOTIFICATION on channel 0; `unsolicited` is set only on notifications sent unasked.
    mutating func sendFocus(_ state: AAP.AudioFocusNotification.State, unsolicited: Bool, _ out: inout [MediaSinkOutput]) {
        focus = state
        let body = AAP.AudioFocusNotification(focusState: state, unsolicited: unsolicited ? true : nil).serializedBytes()
        out.append(.send(channel: 0, messageId: ControlID.audioFocusNotification, body: body))
    }

    /// Whether a focus state lets media play (any of the gain states).
    static func isGain(_ state: AAP.AudioFocusNotification.State) -> Bool {
        state == .gain || state == .gainTransient || state == .gainMediaOnly || state == .gainTransientGuidanceOnly
    }
}
