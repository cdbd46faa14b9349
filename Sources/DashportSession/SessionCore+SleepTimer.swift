import DashportClock
import DashportLog

/// The sleep timer as armed: what it waits for and the clock timer behind it.
struct ArmedSleepTimer {
    var timer: SleepTimer
    var generation: UInt64
    /// For `endOfTrack`: the item that was playing when it was armed.
    var itemId: String?
    /// When it fires; nil while an end-of-track timer waits (paused, or no duration).
    var deadline: ClockInstant?
    var handle: ClockTimer?
}

/// The sleep timer: arming (re-arming replaces), following broadcasts, and firing (pause first,
/// then report `sleepTimerFired`).
extension SessionCore {
    func armSleepTimer(_ timer: SleepTimer) -> CommandResult {
        let now = clock.now
        var armed = ArmedSleepTimer(timer: timer, generation: 0)
        switch timer {
        case .duration(let ms):
            guard ms.isFinite, ms > 0, ms <= Double(configuration.maxSleepTimerMs) else {
                return .rejected(
                    reason: "sleep timer of \(ms) ms is not a finite duration above 0 and at most \(configuration.maxSleepTimerMs) ms")
            }
            armed.deadline = now.advanced(byMs: saturatingInt64(ms.rounded(.up)))
        case .endOfTrack:
            guard let id = mediaItem.item?.id else {
                return .rejected(reason: "nothing is playing, so there is no track to end")
            }
            armed.itemId = id
            armed.deadline = endOfTrackDeadline(now: now)
        }
        cancelSleepTimer(announce: false)
        sleepGeneration += 1
        armed.generation = sleepGeneration
        sleepTimer = armed
        handler.sleepTimerPausesAfter(armed.itemId)
        scheduleSleepTimer(now: now)
        logger.info("sleep timer armed", ["deadline": armed.deadline?.description ?? "end of track"])
        emit(.sleepTimer(sleepTimerStatus))
        return .accepted
    }

    /// Disarms the timer; with `announce`, subscribers hear `sleepTimer(nil)` if one was armed.
    func cancelSleepTimer(announce: Bool = true) {
        let wasArmed = sleepTimer != nil
        sleepTimer?.handle?.cancel()
        sleepTimer = nil
        sleepTimerDue = false
        if wasArmed { handler.sleepTimerPausesAfter(nil) }
        if announce, wasArmed { emit(.sleepTimer(nil)) }
    }

    /// Follows a broadcast: a deadline that has passed, or (end of track) another item, makes the
    /// timer due; otherwise an end-of-track deadline is computed again from the new anchor.
    func sleepTimerAfterBroadcast() {
        guard let armed = sleepTimer else { return }
        let now = clock.now
        if let deadline = armed.deadline, deadline <= now, !waitsForHandlersTrackEnd(armed) {
            sleepTimerDue = true
            return
        }
        guard armed.timer == .endOfTrack else { return }
        guard mediaItem.item?.id == armed.itemId else {
            sleepTimerDue = true
            return
        }
        let previous = armed.deadline
        sleepTimer?.deadline = endOfTrackDeadline(now: now)
        scheduleSleepTimer(now: now)
        if sleepTimer?.deadline != previous, !sleepTimerDue { emit(.sleepTimer(sleepTimerStatus)) }
    }

    /// `now + (duration − projected position) / rate` while playing an item of known duration at a
    /// rate above 0; nil otherwise (the timer then waits for the item to change).
    func endOfTrackDeadline(now: ClockInstant) -> ClockInstant? {
        let rate = playbackState.position.rate
        guard playbackState.status == .playing, let duration = mediaItem.item?.durationMs, rate > 0 else { return nil }
        let remaining = max(0, duration - projectedPositionMs(at: now))
        return now.advanced(byMs: saturatingInt64((Double(remaining) / rate).rounded(.up)))
    }

    /// An end-of-track timer while the handler's audio paces the tracks: the handler's
    /// ``SessionBroadcaster/trackEnded()`` (or another item) fires it, not the clock.
    func waitsForHandlersTrackEnd(_ armed: ArmedSleepTimer) -> Bool {
        armed.timer == .endOfTrack && handler.endsTracksWithAudio
    }

    /// ``SessionBroadcaster/trackEnded()``: an armed end-of-track timer falls due (and fires before
    /// the gate is released).
    func audioTrackEnded() async {
        await exclusively {
            if self.sleepTimer?.timer == .endOfTrack { self.sleepTimerDue = true }
        }
    }

    /// Arms the clock for the current deadline (a deadline already reached makes the timer due).
    private func scheduleSleepTimer(now: ClockInstant) {
        guard var armed = sleepTimer else { return }
        armed.handle?.cancel()
        armed.handle = nil
        if let deadline = armed.deadline, !waitsForHandlersTrackEnd(armed) {
            if deadline <= now {
                sleepTimerDue = true
            } else {
                let generation = armed.generation
                armed.handle = clock.schedule(at: deadline) { [weak self] in
                    await self?.sleepDeadlineReached(generation)
                }
            }
        }
        sleepTimer = armed
    }

    private func sleepDeadlineReached(_ generation: UInt64) async {
        // The gate fires a due timer before it is released.
        await exclusively {
            if self.sleepTimer?.generation == generation { self.sleepTimerDue = true }
        }
    }

    /// Pauses through the handler (when playing or buffering), then reports `sleepTimerFired`.
    func fireSleepTimer() async {
        sleepTimerDue = false
        guard let armed = sleepTimer else { return }
        armed.handle?.cancel()
        sleepTimer = nil
        handler.sleepTimerPausesAfter(nil)
        if playbackState.status == .playing || playbackState.status == .buffering {
            do {
                try await handler.pause(session: broadcaster)
            } catch {
                report(
                    SessionError(
                        code: .handlerFailed, severity: .degraded,
                        message: "the sleep timer could not pause: \(Self.reason(for: error))"))
            }
        }
        logger.info("sleep timer fired")
        emit(.sleepTimerFired)
        emit(.sleepTimer(nil))
    }
}
