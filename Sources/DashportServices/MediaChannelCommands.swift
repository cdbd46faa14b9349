// Sources/DashportServices/MediaChannelCommands.swift - PLAYBACK_COMMAND to a session command, and
// the session's answer to COMMAND_RESULT.

import DashportClock
import DashportMessages
import DashportSession

extension MediaChannelService {
    /// The session command for a PLAYBACK_COMMAND, or why it is refused at once: no command (one
    /// this server does not know) is `notSupported`; an unknown repeat mode, an empty sleep timer
    /// or an over-long custom action name is an invalid argument.
    ///
    /// A jump without an amount is the session's jump (its configured default, 15 s). A jump with
    /// an amount is resolved here into an absolute seek from the last pushed state projected to
    /// `now`, so it needs the `seekTo` capability, like any seek.
    func examine(_ request: DashportMedia.PlaybackCommand, now: ClockInstant) -> Intake {
        switch sessionCommand(request.command, now: now) {
        case .success(let command): .perform(.command, .command(command))
        case .failure(let error): .refuse(error.refusal)
        }
    }

    private func sessionCommand(_ command: DashportMedia.PlaybackCommand.Command?, now: ClockInstant)
        -> Result<SessionCommand, RefusalError>
    {
        guard let command else {
            return .failure(RefusalError(.notSupported("the command is missing or unknown to this server")))
        }
        switch command {
        case .play: return .success(.play)
        case .pause: return .success(.pause)
        case .stop: return .success(.stop)
        case .seekToMs(let ms): return .success(.seekTo(ms: ms))
        case .skipToNext: return .success(.skipToNext)
        case .skipToPrevious: return .success(.skipToPrevious)
        case .skipToQueueItem(let index): return .success(.skipToQueueItem(Int(index)))
        case .setRate(let rate): return .success(.setRate(rate))
        case .setRepeatMode(let mode):
            guard let mode = RepeatMode(wire: mode) else {
                return .failure(RefusalError(.invalid("repeat mode \(mode.rawValue) is unknown")))
            }
            return .success(.setRepeatMode(mode))
        case .setShuffle(let enabled): return .success(.setShuffle(enabled))
        case .jumpForward(let jump): return .success(self.jump(by: Int64(jump.ms ?? 0), forward: true, now: now))
        case .jumpBack(let jump): return .success(self.jump(by: Int64(jump.ms ?? 0), forward: false, now: now))
        case .customAction(let action):
            if let refusal = checkId(action.name, "custom action name") { return .failure(RefusalError(refusal)) }
            return .success(.customAction(name: action.name, extras: Self.extras(action.extras)))
        case .setSleepTimer(let timer):
            switch timer.until {
            case .durationMs(let ms): return .success(.setSleepTimer(.duration(ms: Double(ms))))
            case .endOfTrack: return .success(.setSleepTimer(.endOfTrack))
            case nil: return .failure(RefusalError(.invalid("the sleep timer says neither a duration nor end of track")))
            }
        case .cancelSleepTimer: return .success(.cancelSleepTimer)
        case .setDeviceVolume(let volume):
            guard volume.isFinite else { return .failure(RefusalError(.invalid("volume \(volume) is not a number in 0…1"))) }
            return .success(.setDeviceVolume(volume))
        case .adjustDeviceVolume(let steps): return .success(.adjustDeviceVolume(steps: Int(steps)))
        case .setDeviceMuted(let muted): return .success(.setDeviceMuted(muted))
        }
    }

    /// A jump of `ms` (0: the session's default) as a session command.
    private func jump(by ms: Int64, forward: Bool, now: ClockInstant) -> SessionCommand {
        guard ms > 0 else { return forward ? .jumpForward : .jumpBack }
        let position = session.projectedPositionMs(at: now)
        let (target, overflow) = forward ? position.addingReportingOverflow(ms) : position.subtractingReportingOverflow(ms)
        return .seekTo(ms: overflow ? .max : max(0, target))
    }

    /// Typed extras as the session's strings; a later repeat of a key wins, a missing value is "".
    static func extras(_ extras: [DashportMedia.CustomAction.Extra]) -> [String: String] {
        var result: [String: String] = [:]
        for extra in extras {
            result[extra.key] =
                switch extra.value {
                case .stringValue(let text): text
                case .intValue(let number): String(number)
                case .doubleValue(let number): String(number)
                case .boolValue(let flag): String(flag)
                case nil: ""
                }
        }
        return result
    }

    // MARK: - Answers

    /// COMMAND_RESULT for the session's answer, with the reason classified from its words.
    func commandResult(_ requestId: UInt32, _ result: CommandResult) -> DashportMedia.CommandResult {
        switch result {
        case .accepted:
            return DashportMedia.CommandResult(requestId: requestId, accepted: true)
        case .rejected(let reason):
            return DashportMedia.CommandResult(
                requestId: requestId, accepted: false, reason: Self.wireReason(forRejection: reason),
                message: Self.truncated(reason, maxBytes: configuration.maxQueryBytes))
        }
    }

    /// The wire reason for a session rejection. The session answers in words (``CommandResult``);
    /// these are the phrasings `SessionCore` and `SessionHandlerError` use, matched at fixed
    /// positions so an id quoted in the words cannot change the class. Anything else is `failed`.
    static func wireReason(forRejection reason: String) -> DashportMedia.CommandResult.Reason {
        if SessionCapability.allCases.contains(where: { reason == "\($0.rawValue) is not in the declared capabilities" })
            || (reason.hasPrefix("custom action '") && reason.hasSuffix("' is not one of the declared custom actions"))
            || reason == SessionCore.remotePlaybackNotDeclared
        {
            return .notInCapabilities
        }
        if reason.hasPrefix("notSupported") || reason.hasSuffix(" is not supported by this player")
            || reason.hasPrefix(SessionCore.remoteVolumeNotWritable)
        {
            return .notSupported
        }
        if reason.hasPrefix("there is no item '") || reason.hasPrefix("nothing playable was found for '")
            || reason == "there is nothing to play" || reason.hasSuffix("' is not playable")
            || reason.hasSuffix("' has no tracks to play")
        {
            return .notFound
        }
        let invalidPrefixes = [
            "seek position ", "queue position ", "rate ", "volume ", "the media id is empty", "the query is longer than ",
            "sleep timer of ", "nothing is playing, so there is no track to end", "an extra is longer than ",
            "already at the end of the queue",
        ]
        if invalidPrefixes.contains(where: reason.hasPrefix)
            || (reason.first?.isNumber == true && reason.contains(" extras, more than "))
        {
            return .invalidArgument
        }
        return .failed
    }
}

extension MediaChannelService {
    /// `text` cut to at most `maxBytes` of UTF-8, on a character boundary.
    static func truncated(_ text: String, maxBytes: Int) -> String {
        guard text.utf8.count > maxBytes else { return text }
        var result = ""
        var bytes = 0
        for character in text {
            bytes += character.utf8.count
            guard bytes <= maxBytes else { break }
            result.append(character)
        }
        return result
    }
}

/// A ``Refusal`` carried through `Result`.
struct RefusalError: Error {
    var refusal: Refusal
    init(_ refusal: Refusal) { self.refusal = refusal }
}

extension RepeatMode {
    /// The session's repeat mode for a wire mode; nil for values the schema does not name.
    init?(wire: DashportMedia.RepeatMode) {
        switch wire {
        case .off: self = .none
        case .one: self = .one
        case .all: self = .all
        default: return nil
        }
    }

    var wire: DashportMedia.RepeatMode {
        switch self {
        case .none: .off
        case .one: .one
        case .all: .all
        }
    }
}
