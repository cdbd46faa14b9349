// Sources/DashportServer/ServerCore+MPD.swift - `--mpd`: MPD as the library and the player.

import DashportArtwork
import DashportBrowse
import DashportClock
import DashportFiles
import DashportLog
public import DashportMPD
public import DashportMPDSource
import DashportSession
import FoundationEssentials
import Synchronization

/// The MPD side of a server started with `--mpd`: the client, the library, the player, and the
/// one task that turns MPD's events into what cars see.
///
/// - `database` / `stored_playlist` changed: the library asks MPD again for every list it served
///   and exactly those that differ are invalidated (every car is pushed children-changed for each).
/// - `player` / `playlist` / `mixer` / `options` changed: the player reads MPD's state into the
///   session's channels (every car sees `mpc next`).
/// - MPD went away: every car is told (a session error) and the log says why and what to do; the
///   client reconnects with back-off. MPD came back: everything is invalidated and the channels
///   read again. Nothing else is served meanwhile: lists come from the browse cache, marked as such.
public final class MPDSource: Sendable {
    public let client: MPDClient
    public let library: MPDLibraryProvider
    public let player: MPDPlaybackHandler
    let follower = Mutex<Task<Void, Never>?>(nil)
    let listener = Mutex<Task<Void, Never>?>(nil)

    init(client: MPDClient, library: MPDLibraryProvider, player: MPDPlaybackHandler) {
        self.client = client
        self.library = library
        self.player = player
    }

    /// Starts the client and follows its events into the browse core and the session.
    func follow(browse: BrowseCore, session: SessionCore, logger: Logger) async {
        let events = await client.events()
        await client.start()
        let (library, player) = (self.library, self.player)
        let task = Task {
            var wasDown = false
            for await event in events {
                switch event {
                case .changed(let subsystems):
                    if subsystems.contains("update") { await Self.logUpdating(client: library.client, logger: logger) }
                    let changed = await library.refresh(subsystems)
                    if !changed.isEmpty {
                        logger.notice(
                            "MPD's library changed: \(changed.count) list(s) invalidated",
                            ["lists": changed.prefix(8).joined(separator: ",")])
                    }
                    for parent in changed { await browse.invalidate(parent) }
                    await player.mpdChanged(subsystems, core: session)
                case .connected:
                    if wasDown {
                        library.forgetAll()
                        await browse.invalidate(nil)
                    }
                    wasDown = false
                    await Self.logUpdating(client: library.client, logger: logger)
                    await player.mpdChanged(["player", "playlist"], core: session)
                case .disconnected(let error):
                    wasDown = true
                    await session.report(
                        SessionError(
                            code: .browseProviderUnavailable, severity: .degraded,
                            message: "MPD is not answering (\(Self.carWords(error))); lists come from the cache until it does"),
                        log: false)
                }
            }
        }
        follower.withLock { $0 = task }
    }

    /// Says in the log when MPD is (re)building its database: lists may be incomplete meanwhile,
    /// and once it ends the changed lists are pushed to every car.
    static func logUpdating(client: MPDClient, logger: Logger) async {
        guard let status = try? await client.run(MPDCommand("status")) else { return }
        if let job = status["updating_db"] {
            logger.notice("MPD is updating its database (job \(job)); lists may be incomplete until it finishes, then cars are told")
        }
    }

    /// What a car may read about an MPD fault (no socket paths).
    static func carWords(_ error: MPDError) -> String {
        switch error {
        case .unreachable: "not running"
        case .password: "it refused the password"
        case .tooOld: "its version is too old"
        case .timedOut: "it stopped answering"
        default: "the connection closed"
        }
    }

    /// MPD's pipe output (the one feeding `dashport audio-in`) plays only while a car's media
    /// sink listens: switched off with `disableoutput` when the last car stops listening, so MPD's
    /// other outputs (the Pi's ALSA) play on their own, and on again with `enableoutput` when a car
    /// listens. One task follows the changes in order; a change while MPD is away is applied when
    /// the next one comes. The player is told the input, whose lead it takes off MPD's `elapsed`.
    func followListening(_ input: SessionAudioInput, logger: Logger) {
        let (changes, continuation) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(1))
        let token = input.observeListening { continuation.yield($0) }
        let (client, player) = (self.client, self.player)
        let task = Task {
            defer { input.stopObserving(token) }
            // MPD's elapsed counts what it wrote into this input; positions take its lead off.
            await player.hear(input)
            for await listening in changes {
                do throws(MPDError) {
                    let outputs = try await client.run(MPDCommand("outputs")).records(startingAt: ["outputid"])
                    let pipes = outputs.filter { record in record.contains { $0.key == "plugin" && $0.value == "pipe" } }
                    for pipe in pipes {
                        guard let id = pipe.first(where: { $0.key == "outputid" })?.value else { continue }
                        let name = pipe.first { $0.key == "outputname" }?.value ?? id
                        _ = try await client.run(MPDCommand(listening ? "enableoutput" : "disableoutput", id))
                        logger.notice(
                            listening
                                ? "a car listens: MPD's pipe output is on"
                                : "no car listens: MPD's pipe output is off, its other outputs play",
                            ["output": name])
                    }
                } catch {
                    logger.info("could not switch MPD's pipe output: \(error)")
                }
            }
        }
        listener.withLock { $0 = task }
    }

    func stop() {
        listener.withLock { $0?.cancel() }
        follower.withLock { $0?.cancel() }
        let client = self.client
        Task { await client.stop() }
    }
}

extension ServerCore {
    /// The core for `--mpd ADDRESS`: MPD's library as the browse provider, MPD as the player, covers
    /// read from MPD into `<state>/mpd-covers` (the artwork pipeline's root). No catalog is loaded.
    static func makeMPD(
        address text: String, configuration: ServerConfiguration, logger: Logger, clock: any DashportClock
    ) async throws -> ServerCore {
        let address: MPDAddress
        do throws(MPDAddressError) { address = try MPDAddress.parse(text) } catch { throw ConfigurationError(error.description) }
        let state = configuration.stateDirectory
        let client = MPDClient(
            configuration: MPDClient.Configuration(address: address, password: configuration.mpdPassword), clock: clock, logger: logger)
        let coverDirectory = state + "/mpd-covers"
        let library = MPDLibraryProvider(client: client, coverDirectory: coverDirectory, logger: logger)
        let player = MPDPlaybackHandler(library: library, clock: clock, logger: logger)
        let cache = BrowseCache(directory: state + "/browse-cache", logger: logger)
        let browse = BrowseCore(provider: library, cache: cache, configuration: BrowseConfiguration(clock: clock), logger: logger)
        var artworkConfiguration = ArtworkConfiguration(roots: [coverDirectory], cacheDirectory: state + "/artwork-cache")
        artworkConfiguration.allowPlainHTTP = configuration.artworkAllowPlainHTTP
        artworkConfiguration.downloadTimeout = configuration.artworkDownloadTimeout
        do { _ = try Files.makeDirectory(coverDirectory) } catch { throw ConfigurationError("cannot make \(coverDirectory): \(error)") }
        let artwork = ArtworkService(configuration: artworkConfiguration, logger: logger, clock: clock)
        let session = SessionCore(
            handler: player, clock: clock,
            persistence: SessionStore(directory: URL(fileURLWithPath: state + "/session")),
            configuration: configuration.session.sessionConfiguration,
            logger: logger.labelled("session"))
        let restored = await session.restore()
        logger.labelled("session").info("session restore: \(restored)")
        let source = MPDSource(client: client, library: library, player: player)
        await source.follow(browse: browse, session: session, logger: logger.labelled("mpd"))
        logger.notice("serving MPD's library and playing through MPD", ["mpd": address.description])
        return ServerCore(
            browse: browse, artwork: artwork, session: session, clock: clock, catalogPath: "mpd " + address.description, mpd: source,
            reactors: configuration.reactors)
    }
}
