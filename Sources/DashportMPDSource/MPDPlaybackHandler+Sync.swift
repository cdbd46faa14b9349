// Sources/DashportMPDSource/MPDPlaybackHandler+Sync.swift - MPD's status and queue as the session's three channels.

import DashportBrowse
import DashportLog
import DashportMPD
public import DashportSession

extension MPDPlaybackHandler {
    /// Reads MPD's `status` (and `playlistinfo` when the queue's version moved) and broadcasts it:
    /// the queue, the current song as the media item, the playback state with MPD's `elapsed`.
    /// `positionMoved` false (a wake for the mixer or options only) keeps the shown anchor whatever
    /// MPD's `elapsed` says (the reading's latency is no discontinuity).
    public func sync(session: SessionBroadcaster, positionMoved: Bool = true) async throws {
        let status = try await client.run(MPDCommand("status"))
        var queue: QueueState?
        if status["playlist"] != queueVersion {
            let songs = MPDSong.songs(in: try await client.run(MPDCommand("playlistinfo")))
            queue = QueueState(items: songs.enumerated().map { index, song in queueEntry(song, at: index) })
            queueVersion = status["playlist"]
        }
        let shown = await session.queue
        let count = queue?.items.count ?? shown.items.count
        var state = PlaybackState()
        state.status =
            switch status["state"] {
            case "play": .playing
            case "pause": .paused
            default: .stopped
            }
        let index = status["song"].flatMap(Int.init).flatMap { (0..<count).contains($0) ? $0 : nil }
        state.queueIndex = index
        // MPD's `elapsed` counts what it wrote into its pipe output; the cars hear that the pipe's
        // lead later (what MPD wrote that no car was sent yet). Paused, the lead plays out and
        // the position MPD shows is where it stops.
        let elapsed = status["elapsed"].flatMap(Double.init).map { Int64($0 * 1000) } ?? 0
        let lead = state.status == .playing ? (pipeInput?.leadMs ?? 0) : 0
        state.position = PositionAnchor(valueMs: state.status == .stopped ? 0 : max(elapsed - lead, 0), at: clock.now, rate: 1)
        let repeating = status["repeat"] == "1"
        let single = status["single"] == "1"
        state.repeatMode = repeating ? (single ? .one : .all) : .none
        state.shuffle = status["random"] == "1"
        state.capabilities = initialCapabilities
        state.controls =
            state.status == .playing
            ? [.pause, .skipToPrevious, .skipToNext, .seekTo] : [.play, .skipToPrevious, .skipToNext, .seekTo]
        if let error = status["error"] {
            // A song MPD cannot decode, an output that failed: the car shows it; a stopped player is in error.
            state.errorMessage = "MPD: \(error)"
            if state.status == .stopped { state.status = .error }
            logger.warning("MPD reports: \(error)")
        }
        // MPD's `elapsed` and our clock disagree by a few ms at every reading: within
        // ``positionSlackMs`` of the shown anchor's projection it is the same position, and the
        // shown anchor is kept, so an idle wake that changed nothing broadcasts nothing.
        let current = await session.playbackState
        if current.status == state.status, queue == nil, current.queueIndex == state.queueIndex,
            !positionMoved
                || (current.position.projectedMs(at: state.position.at, advancing: current.isAdvancing) - state.position.valueMs).magnitude
                    <= Self.positionSlackMs
        {
            state.position = current.position
        }
        let entries = queue?.items ?? shown.items
        let item = index.map { entries[$0] }
        if let duration = item?.durationMs { state.position.valueMs = min(state.position.valueMs, duration) }
        try await session.update(queue: queue, mediaItem: MediaItemState(item: item), playbackState: state)
        try await declareVolume(status, session: session)
    }

    /// MPD's mixer as remote playback (absolute, 100 steps); withdrawn when MPD has no mixer.
    func declareVolume(_ status: MPDResponse, session: SessionBroadcaster) async throws {
        let volume = status["volume"].flatMap(Int.init).flatMap { $0 >= 0 ? $0 : nil }
        // Muted by a car: MPD is at 0 and the car is shown the level unmute gives back. Another
        // client raising the volume meanwhile ends the mute.
        if volume != 0 { volumeBeforeMute = nil }
        let shown = volumeBeforeMute ?? volume
        let remote = shown.map {
            RemotePlayback(volume: Double(min($0, 100)) / 100, muted: volumeBeforeMute != nil, steps: 100, control: .absolute)
        }
        if await session.remotePlayback != remote { try await session.setRemotePlayback(remote) }
    }

    /// The queue entry for MPD's song at `index`: the id it was loaded with when it is still the
    /// same song there, else the song in its folder.
    func queueEntry(_ song: MPDSong, at index: Int) -> MediaItem {
        let id: String
        if index < loadedIds.count, case .song(let uri, _) = MPDLibraryId(loadedIds[index]), uri == song.uri {
            id = loadedIds[index]
        } else {
            id = MPDLibraryId.song(uri: song.uri, in: .directory(song.directory)).id
        }
        var entry = MediaItem(song.item(in: .directory(song.directory)))
        entry.id = id
        return entry
    }

    /// MPD said something changed (any client's doing): bring every car's channels in line.
    public func mpdChanged(_ subsystems: Set<String>, core: SessionCore) async {
        guard !subsystems.isDisjoint(with: ["player", "playlist", "mixer", "options"]) else { return }
        if subsystems.contains("playlist") { queueVersion = nil }
        let moved = !subsystems.isDisjoint(with: ["player", "playlist"])
        do {
            try await core.exclusive { session in try await self.sync(session: session, positionMoved: moved) }
        } catch {
            logger.warning("cannot read MPD's state after a change: \(error)")
        }
    }
}
