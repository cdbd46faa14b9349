import DashportClock
import DashportLog
import FoundationEssentials

/// What ``SessionCore/restore()`` found.
public enum RestoreResult: Sendable, Hashable {
    /// A session was brought back, paused, at its position projected to the write time.
    case restored
    /// Nothing to restore: no store, no file, or a session with nothing queued.
    case empty
    /// The file was written by another format version; it is left alone and the session stays idle.
    case unsupportedVersion(Int)
    /// The file is unreadable, truncated or invalid; the session stays idle.
    case corrupt(reason: String)
}

/// Persistence: every broadcast is written, a playing session is checkpointed every
/// ``SessionConfiguration/checkpointIntervalMs``, and ``restore()`` brings the session back paused.
extension SessionCore {
    /// Brings back the persisted session: paused, position projected to the write time and clamped
    /// to the item's duration, broadcast to subscribers. Never throws on bad data: a corrupt or
    /// foreign file is reported as a `restoreFailed` session error and the session stays as it is.
    public func restore() async -> RestoreResult {
        await exclusively { self.restoreLocked() }
    }

    func restoreLocked() -> RestoreResult {
        guard let store else { return .empty }
        switch store.load() {
        case .empty:
            return .empty
        case .unsupportedVersion(let version):
            reportRestoreFailure(
                "the persisted session has format version \(version); this build reads version \(PersistedSession.currentVersion)")
            return .unsupportedVersion(version)
        case .corrupt(let reason):
            reportRestoreFailure(reason)
            return .corrupt(reason: reason)
        case .loaded(let persisted):
            let snapshot = persisted.snapshot
            guard !snapshot.isIdle else { return .empty }
            var state = snapshot.playbackState
            let duration = snapshot.mediaItem.item?.durationMs ?? snapshot.currentEntry?.durationMs
            var position = max(0, state.position.valueMs)
            if let duration { position = min(position, max(0, duration)) }
            state.status = .paused
            state.position = PositionAnchor(valueMs: position, at: clock.now, rate: state.position.rate)
            state.bufferedPositionMs = nil
            state.errorMessage = nil
            do throws(SessionStateError) {
                try apply(queue: snapshot.queue, mediaItem: snapshot.mediaItem, playbackState: state)
            } catch {
                let reason = "the persisted session is invalid: \(error)"
                reportRestoreFailure(reason)
                return .corrupt(reason: reason)
            }
            logger.info("session restored", ["items": "\(snapshot.queue.items.count)", "position": "\(position)"])
            return .restored
        }
    }

    private func reportRestoreFailure(_ reason: String) {
        report(SessionError(code: .restoreFailed, severity: .degraded, message: reason))
    }

    /// Writes the channels (position projected to now) and re-arms the checkpoint timer.
    func persist() {
        guard let store else { return }
        let now = clock.now
        let snapshot = SessionSnapshot(
            playbackState: playbackState.reanchored(at: now, durationMs: mediaItem.item?.durationMs),
            mediaItem: mediaItem, queue: queue)
        let wallMs = saturatingInt64(clock.wallTime().timeIntervalSince1970 * 1000)
        do throws(SessionStoreError) {
            try store.save(PersistedSession(version: PersistedSession.currentVersion, savedAtMs: wallMs, snapshot: snapshot))
            if persistenceFailing {
                persistenceFailing = false
                logger.info("session written again")
            }
        } catch {
            // A full or failing disk: the session lives on in memory and the previous file stays as
            // it was (the write is atomic). Said once, with its cause, when it starts (the report
            // logs it); the next write that works says so.
            if persistenceFailing {
                logger.debug("session not written again: \(error)")
            } else {
                persistenceFailing = true
                // The log names the file; what cars are told names no server path.
                logger.warning(
                    "session error: the session cannot be saved: \(error)", ["code": SessionError.Code.persistenceFailed.rawValue])
                report(
                    SessionError(code: .persistenceFailed, severity: .degraded, message: "the session cannot be saved: \(error.cause)"),
                    log: false)
            }
        }
        rearmCheckpoint(now: now)
    }

    /// While playing, the next checkpoint is one interval after the last write.
    private func rearmCheckpoint(now: ClockInstant) {
        checkpointTimer?.cancel()
        checkpointTimer = nil
        guard store != nil, playbackState.status == .playing, !closed else { return }
        checkpointGeneration += 1
        let generation = checkpointGeneration
        checkpointTimer = clock.schedule(at: now.advanced(byMs: configuration.checkpointIntervalMs)) { [weak self] in
            await self?.checkpoint(generation)
        }
    }

    private func checkpoint(_ generation: UInt64) {
        guard generation == checkpointGeneration, playbackState.status == .playing, !closed else { return }
        persist()
    }
}
