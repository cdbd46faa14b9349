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

/// Persistence: a broadcast that changes what a restore brings back is written at once (off the
/// actor, see ``SessionWriter``), other changes and a playing session's position at the next
/// checkpoint (every ``SessionConfiguration/checkpointIntervalMs``), everything on ``close()``;
/// ``restore()`` brings the session back paused.
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

    /// Writes the channels (position projected to now) and re-arms the checkpoint timer. The write
    /// itself runs on the ``SessionWriter``'s queue, off this actor.
    func persist() {
        guard let writer else { return }
        let now = clock.now
        let snapshot = SessionSnapshot(
            playbackState: playbackState.reanchored(at: now, durationMs: mediaItem.item?.durationMs),
            mediaItem: mediaItem, queue: queue)
        let wallMs = saturatingInt64(clock.wallTime().timeIntervalSince1970 * 1000)
        writer.submit(PersistedSession(version: PersistedSession.currentVersion, savedAtMs: wallMs, snapshot: snapshot))
        unsavedChanges = false
        rearmCheckpoint(now: now)
    }

    /// After a broadcast: written at once when it changed what a restore brings back (the item, the
    /// queue, the status, the queue index, shuffle or repeat, a paused position); anything else (a
    /// playing player's position reports, buffering, controls) waits for the next checkpoint, so a
    /// chatty player costs at most one write per ``SessionConfiguration/checkpointIntervalMs``.
    func persistAfterBroadcast(now restoreChanged: Bool) {
        guard store != nil else { return }
        if restoreChanged {
            persist()
            return
        }
        unsavedChanges = true
        if checkpointTimer == nil { armCheckpoint(at: clock.now.advanced(byMs: configuration.checkpointIntervalMs)) }
    }

    /// Whether going from `old` to `new` changes what a restore brings back.
    static func mattersForRestore(from old: PlaybackState, to new: PlaybackState) -> Bool {
        if old.status != new.status || old.queueIndex != new.queueIndex || old.shuffle != new.shuffle
            || old.repeatMode != new.repeatMode
        {
            return true
        }
        // A seek while nothing plays: the restored position is that one (while playing, the next
        // checkpoint takes the position anyway).
        return !new.isAdvancing && old.position.valueMs != new.position.valueMs
    }

    /// Reports what the writer found: a write that started failing (once, with its cause), and
    /// that the session is written again.
    func takeWriteOutcomes() {
        guard let writer else { return }
        for outcome in writer.takeOutcomes() {
            switch outcome {
            case .failed(let error):
                // A full or failing disk: the session lives on in memory and the previous file
                // stays as it was (the write is atomic). The log names the file; what cars are
                // told names no server path.
                persistenceFailing = true
                logger.warning(
                    "session error: the session cannot be saved: \(error)", ["code": SessionError.Code.persistenceFailed.rawValue])
                report(
                    SessionError(code: .persistenceFailed, severity: .degraded, message: "the session cannot be saved: \(error.cause)"),
                    log: false)
            case .recovered:
                persistenceFailing = false
                logger.info("session written again")
            }
        }
    }

    /// Returns once every write asked for so far has finished and its outcome is reported (tests).
    public func writesSettled() async {
        await writer?.settled()
        takeWriteOutcomes()
    }

    /// Writes finished so far: the seam a test counts writes by.
    nonisolated var sessionWrites: Int { writer?.writes ?? 0 }

    /// While playing, the next checkpoint is one interval after the last write.
    private func rearmCheckpoint(now: ClockInstant) {
        checkpointTimer?.cancel()
        checkpointTimer = nil
        guard playbackState.status == .playing else { return }
        armCheckpoint(at: now.advanced(byMs: configuration.checkpointIntervalMs))
    }

    private func armCheckpoint(at deadline: ClockInstant) {
        guard store != nil, !closed else { return }
        checkpointGeneration += 1
        let generation = checkpointGeneration
        checkpointTimer = clock.schedule(at: deadline) { [weak self] in
            await self?.checkpoint(generation)
        }
    }

    private func checkpoint(_ generation: UInt64) {
        guard generation == checkpointGeneration, !closed else { return }
        checkpointTimer = nil
        guard playbackState.status == .playing || unsavedChanges else { return }
        persist()
    }
}
