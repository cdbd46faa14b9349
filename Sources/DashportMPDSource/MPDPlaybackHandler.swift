// Sources/DashportMPDSource/MPDPlaybackHandler.swift - the session's player is MPD: commands to MPD, MPD's changes to every car.

public import DashportBrowse
public import DashportClock
public import DashportLog
import DashportMPD
public import DashportSession

/// Plays through MPD. "Play this" loads MPD's queue with the resolved queue (an album plays its
/// songs) and plays from the chosen one; every session command maps to MPD (`play`, `pause`,
/// `stop`, `seekcur`, `next`, `previous`, `play N`, `repeat`/`single`, `random`, `setvol`). The
/// session's channels are never guessed: after each command, and whenever MPD's idle connection
/// says `player`, `playlist`, `mixer` or `options` changed (a passenger's app, `mpc next`),
/// ``sync(session:)`` reads MPD's `status` (and its queue when its version moved) and broadcasts
/// what MPD says, so every car sees a change made anywhere. Position is MPD's `elapsed` minus its
/// lead in the pipe (what MPD wrote that the cars were not sent yet, ``hear(_:)``) as an anchor,
/// broadcast on discontinuities only (the core drops same-projection updates).
///
/// MPD plays on its own outputs, so the handler declares remote playback with absolute volume
/// (MPD's 0…100 mixer) when MPD has a mixer. ``audioSource`` is where the server's socket-fed
/// source (`dashport audio-in`, MPD's pipe output) plugs in; nil until it does.
public actor MPDPlaybackHandler: SessionHandler {
    public nonisolated let library: MPDLibraryProvider
    nonisolated let clock: any DashportClock
    let logger: Logger
    /// MPD's volume (0…100) before a car muted it, nil while not muted: MPD has no mute, so mute
    /// is `setvol 0` and unmute gives this back.
    var volumeBeforeMute: Int?
    /// MPD's queue version (`playlist:` of `status`) the queue channel last showed.
    var queueVersion: String?
    /// The ids the last "play this" gave MPD's queue, by position, to keep the car's ids for them.
    var loadedIds: [String] = []
    /// How far MPD's `elapsed` may be from the shown position's projection and still be the same
    /// position (not a discontinuity to broadcast): AAP carries whole seconds.
    static let positionSlackMs: UInt64 = 250

    /// The server's audio input MPD's pipe output feeds (``hear(_:)``), whose lead is taken off
    /// MPD's `elapsed`; nil: MPD is not heard through Dashport.
    var pipeInput: SessionAudioInput?

    /// The sound MPD makes for the cars, once the server plugs a source in (nil: status, metadata
    /// and keys only; MPD plays on its own outputs).
    public nonisolated let audioSource: (any SessionAudioSource)?

    public init(library: MPDLibraryProvider, clock: any DashportClock, logger: Logger, audioSource: (any SessionAudioSource)? = nil) {
        self.library = library
        self.clock = clock
        self.logger = logger.labelled("mpd-player")
        self.audioSource = audioSource
    }

    var client: MPDClient { library.client }

    /// The server: MPD's pipe output feeds `input` (through `dashport audio-in`), so what MPD's
    /// `elapsed` counts reaches the cars `input`'s lead later; positions are taken back by it.
    public func hear(_ input: SessionAudioInput) { pipeInput = input }

    // MARK: Browse trio, from the library

    public nonisolated var supportsSearch: Bool { true }
    public nonisolated func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        try await library.children(of: parentId, page: page, pageSize: pageSize)
    }
    public nonisolated func item(id: String) async throws -> BrowseItem? { try await library.item(id: id) }
    public nonisolated func search(query: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        try await library.search(query: query, page: page, pageSize: pageSize)
    }
    public nonisolated func parentId(of id: String) async throws -> String? { library.parentId(of: id) }

    public nonisolated var initialCapabilities: Set<SessionCapability> {
        [
            .play, .pause, .stop, .seekTo, .jumpForward, .jumpBack, .skipToNext, .skipToPrevious, .skipToQueueItem,
            .setRepeatMode, .setShuffle, .playFromMediaId, .playFromSearch,
        ]
    }

    // MARK: Commands

    public func playFromMediaId(_ request: PlayRequest, session: SessionBroadcaster) async throws {
        var commands = [MPDCommand("clear")]
        var ids: [String] = []
        for entry in request.queue.items {
            guard case .song(let uri, _) = MPDLibraryId(entry.id) else { continue }
            commands.append(MPDCommand("add", uri))
            ids.append(entry.id)
        }
        guard !ids.isEmpty else { throw SessionHandlerError.nothingToPlay }
        commands.append(MPDCommand("play", String(min(max(request.startIndex, 0), ids.count - 1))))
        _ = try await client.run(list: commands)
        loadedIds = ids
        queueVersion = nil
        try await sync(session: session)
    }

    public func play(session: SessionBroadcaster) async throws {
        let state = try await client.run(MPDCommand("status"))["state"]
        try await send(state == "pause" ? MPDCommand("pause", "0") : MPDCommand("play"), session: session)
    }
    public func pause(session: SessionBroadcaster) async throws { try await send(MPDCommand("pause", "1"), session: session) }
    public func stop(session: SessionBroadcaster) async throws { try await send(MPDCommand("stop"), session: session) }
    public func seekTo(_ positionMs: Int64, session: SessionBroadcaster) async throws {
        try await send(MPDCommand("seekcur", Self.seconds(positionMs)), session: session)
    }
    public func skipToNext(session: SessionBroadcaster) async throws { try await send(MPDCommand("next"), session: session) }
    public func skipToPrevious(session: SessionBroadcaster) async throws { try await send(MPDCommand("previous"), session: session) }
    public func skipToQueueItem(_ index: Int, session: SessionBroadcaster) async throws {
        try await send(MPDCommand("play", String(index)), session: session)
    }
    public func onSetRepeatMode(_ mode: RepeatMode, session: SessionBroadcaster) async throws {
        let (repeatOn, single) =
            switch mode {
            case .none: ("0", "0")
            case .one: ("1", "1")
            case .all: ("1", "0")
            }
        _ = try await client.run(list: [MPDCommand("repeat", repeatOn), MPDCommand("single", single)])
        try await sync(session: session)
    }
    public func onSetShuffle(_ enabled: Bool, session: SessionBroadcaster) async throws {
        try await send(MPDCommand("random", enabled ? "1" : "0"), session: session)
    }
    public func onSetDeviceMuted(_ muted: Bool, session: SessionBroadcaster) async throws {
        if muted {
            guard volumeBeforeMute == nil else { return }
            let volume = try await client.run(MPDCommand("status"))["volume"].flatMap(Int.init) ?? -1
            guard volume >= 0 else { throw SessionHandlerError.notSupported("mute (MPD has no mixer)") }
            volumeBeforeMute = volume
            try await send(MPDCommand("setvol", "0"), session: session)
        } else {
            guard let volume = volumeBeforeMute else { return }
            volumeBeforeMute = nil
            try await send(MPDCommand("setvol", String(volume)), session: session)
        }
    }

    public func onSetDeviceVolume(_ volume: Double, session: SessionBroadcaster) async throws {
        volumeBeforeMute = nil
        try await send(MPDCommand("setvol", String(Int((min(max(volume, 0), 1) * 100).rounded()))), session: session)
    }

    /// One MPD command, then the channels from what MPD says.
    func send(_ command: MPDCommand, session: SessionBroadcaster) async throws {
        do throws(MPDError) {
            _ = try await client.run(command)
        } catch {
            if case .ack(let ack) = error { throw SessionHandlerError.invalidArgument("MPD: \(ack.message)") }
            throw error
        }
        try await sync(session: session)
    }

    static func seconds(_ ms: Int64) -> String {
        let whole = ms / 1000
        let fraction = ms % 1000
        return fraction == 0 ? "\(whole)" : "\(whole)." + String(String(fraction + 1000).dropFirst())
    }
}
