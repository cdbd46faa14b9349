/// The demo handler's audio: once the server attached the ``DemoPlaybackHandler/player``, the frames
/// it pulled are the position, and the player's track ends move the session on.
///
/// Every command first brings the channels in line with the audio (a track change the handler has
/// not broadcast yet is broadcast, the position is read from the frames), then cues the player,
/// under the player's lock and before it broadcasts. The audio's own track changes come back through
/// ``audioEvent(_:)`` as one task per change, run like a command (``SessionBroadcaster/exclusive(_:)``).
/// Until the server attaches, none of this runs and the handler plays on the clock.
extension DemoPlaybackHandler {
    public nonisolated var audioSource: (any SessionAudioSource)? { player }

    /// While attached the audio ends the tracks (and so an end-of-track sleep timer).
    public nonisolated var endsTracksWithAudio: Bool { player.isAttached }

    /// An end-of-track sleep timer makes the player stop where that track's audio ends.
    public nonisolated func sleepTimerPausesAfter(_ itemId: String?) {
        player.holdAfter(itemId)
    }

    /// The channels as the audio has them: after ``syncWithAudio(_:)``, with the anchor on the
    /// frames pulled (at `now`). Unattached, simply the channels.
    func current(_ session: SessionBroadcaster) async throws -> SessionSnapshot {
        lastSession = session
        try await syncWithAudio(session)
        var snapshot = await session.snapshot()
        let reading = player.reading()
        if reading.attached, reading.loaded {
            snapshot.playbackState.position = PositionAnchor(
                valueMs: reading.positionMs, at: clock.now, rate: snapshot.playbackState.position.rate)
        }
        return snapshot
    }

    /// Loads the player from the channels the first time (at the clock's position), or broadcasts
    /// what the audio did by itself since the last look: the next track (playing, or paused when a
    /// sleep timer held it), or stopped at the end of the queue; then tells the core a track ended.
    func syncWithAudio(_ session: SessionBroadcaster) async throws {
        let reading = player.reading()
        guard reading.attached else { return }
        guard reading.loaded else {
            let snapshot = await session.snapshot()
            let state = snapshot.playbackState
            cueAudio(snapshot, state: state, start: state.projectedPositionMs(at: clock.now, durationMs: snapshot.durationMs))
            syncedEpoch = player.reading().epoch
            await armTrackEnd(session: session)  // disarms the clock's track end
            return
        }
        guard reading.epoch != syncedEpoch else { return }
        syncedEpoch = reading.epoch
        var snapshot = await session.snapshot()
        let queued = !snapshot.queue.items.isEmpty
        if queued { snapshot.playbackState.queueIndex = reading.index }
        snapshot.playbackState.status = reading.playing ? .playing : reading.ended ? .stopped : .paused
        snapshot.playbackState.position = PositionAnchor(
            valueMs: reading.positionMs, at: clock.now, rate: snapshot.playbackState.position.rate)
        try await commit(snapshot, newItem: queued, session: session)
        await session.trackEnded()
    }

    /// Cues the player (when attached) with the queue, the play order, repeat, rate and whether it
    /// plays; from `start` ms of the queue index, or (nil) wherever its audio is now.
    func cueAudio(_ snapshot: SessionSnapshot, state: PlaybackState, start: Int64?) {
        guard player.isAttached else { return }
        let queued = !snapshot.queue.items.isEmpty
        let items = queued ? snapshot.queue.items : snapshot.mediaItem.item.map { [$0] } ?? []
        var ordered = snapshot
        ordered.playbackState = state
        let order = queued ? navigator(for: ordered).order : Array(items.indices)
        let index = queued ? state.queueIndex : items.indices.first
        player.cue(
            DemoToneCue(
                tones: items.map(DemoTone.init), order: order, repeatMode: state.repeatMode,
                start: start.map { (index, $0) }, playing: state.status == .playing, rate: state.position.rate))
    }

    /// The player was attached, or its audio moved on: bring the channels in line, like a command.
    /// Before any command there is nothing to follow (the first command loads the player).
    func audioEvent(_ event: DemoTonePlayer.Event) async {
        guard let session = lastSession else { return }
        do {
            try await session.exclusive { session in try await self.syncWithAudio(session) }
        } catch {
            await session.report(
                SessionError(code: .handlerFailed, severity: .degraded, message: "the demo player could not follow its audio: \(error)"))
        }
    }
}
