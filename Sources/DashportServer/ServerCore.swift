public import DashportClock
public import FoundationEssentials
import Glibc
public import DashportArtwork
public import DashportBrowse
public import DashportLog
public import DashportSession

/// The shared core every car connection talks to: one browse tree, one artwork pipeline, one
/// playback session. Built once per server from its configuration.
public struct ServerCore: Sendable {
    public let browse: BrowseCore
    public let artwork: ArtworkService
    public let session: SessionCore
    /// The server's one clock: browse budgets, artwork backoff, the session's position anchors and
    /// every car connection's link deadlines are all read on it.
    public let clock: any DashportClock
    /// Where the catalog came from (for logs and the artwork roots).
    public let catalogPath: String
    /// The catalog provider, when the server serves its catalog (nil with a custom provider): it
    /// is loaded after the listener starts and reloaded when the file changes.
    public let catalog: CatalogProvider?
    /// Forwards browse reports and artwork failures into the session's error channel.
    let reporters: [Task<Void, Never>]
    /// Memoised media-channel answers, one shard per reactor, dropped as the browse core reports changes.
    let answers: AnswerMemos
    /// The MPD client and what follows its events, when the server serves MPD (`--mpd`).
    public let mpd: MPDSource?

    public init(
        browse: BrowseCore, artwork: ArtworkService, session: SessionCore, clock: any DashportClock, catalogPath: String,
        catalog: CatalogProvider? = nil, mpd: MPDSource? = nil, reactors: Int = 1
    ) {
        self.catalog = catalog
        self.mpd = mpd
        let answers = AnswerMemos(shards: reactors)
        self.answers = answers
        self.reporters = ServerCore.forwardReports(browse: browse, artwork: artwork, to: session, answers: answers)
        self.browse = browse
        self.artwork = artwork
        self.session = session
        self.clock = clock
        self.catalogPath = catalogPath
    }

    /// Makes the catalog provider (not loaded yet: the server loads it once it listens, so cars that
    /// connect meanwhile are answered from the disk cache; see ``DashportServer/start(configuration:logger:provider:artworkFetcher:clock:handler:releaseThreadCaches:)``),
    /// opens the browse and artwork caches and restores the persisted session, all under
    /// `stateDirectory`.
    /// `provider` replaces the catalog (a music server, or a test's slow or absent provider; file
    /// covers are then served from the catalog's folder still); `artworkFetcher` replaces the
    /// URLSession downloader (tests serve https covers offline); `clock` is the time every part reads.
    public static func make(
        configuration: ServerConfiguration, logger: Logger,
        provider customProvider: (any BrowseProvider)? = nil, artworkFetcher: (any ArtworkFetcher)? = nil,
        clock: any DashportClock = SystemClock(), handler customHandler: (any SessionHandler)? = nil
    ) async throws -> ServerCore {
        if customProvider == nil, let address = configuration.mpd {
            return try await makeMPD(address: address, configuration: configuration, logger: logger, clock: clock)
        }
        let catalogPath = try configuration.catalog ?? DemoLibrary.catalogPath(stateDirectory: configuration.stateDirectory)
        let catalog = customProvider == nil ? CatalogProvider(path: catalogPath) : nil
        // Safe: exactly one of the two is nil.
        let provider: any BrowseProvider = customProvider ?? catalog!
        let state = configuration.stateDirectory
        let cache = BrowseCache(directory: state + "/browse-cache", logger: logger)
        let browse = BrowseCore(provider: provider, cache: cache, configuration: BrowseConfiguration(clock: clock), logger: logger)

        var artworkConfiguration = ArtworkConfiguration(
            roots: [URL(fileURLWithPath: catalogPath).deletingLastPathComponent().path],
            cacheDirectory: state + "/artwork-cache")
        artworkConfiguration.allowPlainHTTP = configuration.artworkAllowPlainHTTP
        artworkConfiguration.downloadTimeout = configuration.artworkDownloadTimeout
        let artwork = ArtworkService(configuration: artworkConfiguration, logger: logger, fetcher: artworkFetcher, clock: clock)

        let handler =
            customHandler ?? DemoPlaybackHandler(library: provider, clock: clock, remoteVolume: configuration.session.remoteVolume)
        let session = SessionCore(
            handler: handler, clock: clock,
            persistence: SessionStore(directory: URL(fileURLWithPath: state + "/session")),
            configuration: configuration.session.sessionConfiguration,
            logger: logger.labelled("session"))
        let restored = await session.restore()
        logger.labelled("session").info("session restore: \(restored)")
        return ServerCore(
            browse: browse, artwork: artwork, session: session, clock: clock, catalogPath: catalogPath, catalog: catalog,
            reactors: configuration.reactors)
    }
}

extension ServerCore {
    /// Browse reports that concern every car (a discarded cache, a provider that is down) and
    /// artwork failures become session errors, so every car that takes them is told. Reports caused
    /// by one car's profile (a dropped tab, a cut branch) are not forwarded here: each car's media
    /// channel tells that car (``carError(for:)``). What cars read names items and keys, never
    /// server paths; the browse core's and artwork pipeline's logs keep the detail.
    /// Children-changed notifications also drop the memoised answers for that parent.
    static func forwardReports(
        browse: BrowseCore, artwork: ArtworkService, to session: SessionCore,
        answers: AnswerMemos
    ) -> [Task<Void, Never>] {
        let fromBrowse = Task {
            for await notification in await browse.subscribe() {
                if case .childrenChanged(let parentId) = notification { answers.invalidate(parentId) }
                guard case .report(let report) = notification, !report.isCarSpecific,
                    let error = sessionError(for: report)
                else { continue }
                // The browse core and the artwork service log their own reports: one fault, one line.
                await session.report(error, log: false)
            }
        }
        let fromArtwork = Task {
            for await case .failed(let key, _, let reason) in await artwork.notifications() {
                await session.report(
                    SessionError(
                        code: .artworkFailed, severity: .degraded,
                        message: "a cover could not be loaded (\(artworkFailureKind(reason)))", subject: key.rawValue), log: false)
            }
        }
        return [fromBrowse, fromArtwork]
    }

    /// The session error a car is told for a browse report, in words that name no server path.
    static func sessionError(for report: BrowseReport) -> SessionError? {
        guard let code = sessionCode(for: report.code) else { return nil }
        let message: String
        switch code {
        case .browseRootRejected, .browseDepthExceeded: message = report.message  // titles and ids only
        case .browseCacheDiscarded: message = "a browse cache entry was corrupt or foreign and was discarded"
        default: message = "the library is not answering; lists come from the cache until it does"
        }
        let subject = report.isCarSpecific ? report.itemId : nil
        return SessionError(code: code, severity: .degraded, message: message, subject: subject)
    }

    /// A path-free word for why a cover failed.
    static func artworkFailureKind(_ error: ArtworkError) -> String {
        switch error {
        case .decodeFailed, .tooManyPixels: "not a decodable image"
        case .notRegistered, .outsideRoots, .unsupportedScheme: "not a served cover"
        case .tooLarge: "too large"
        default: "could not be fetched"
        }
    }

    static func sessionCode(for browseCode: String) -> SessionError.Code? {
        switch browseCode {
        case BrowseReportCode.rootRejected: .browseRootRejected
        case BrowseReportCode.depthCut: .browseDepthExceeded
        case BrowseReportCode.cacheDiscarded: .browseCacheDiscarded
        case BrowseReportCode.providerUnavailable, BrowseReportCode.providerTimeout: .browseProviderUnavailable
        default: nil  // logged by the browse core; nothing a car needs to show
        }
    }

    /// Stops forwarding reports.
    func stop() {
        reporters.forEach { $0.cancel() }
        mpd?.stop()
    }
}

/// Finds the demo library (`Fixtures/demo/catalog.json` in the source tree), or unpacks the
/// copy compiled into the binary, so that an installed or copied `dashport` serves it too.
public enum DemoLibrary {
    /// In order: `$DASHPORT_DEMO_CATALOG`; `share/dashport/demo/catalog.json` next to the binary's
    /// `bin/` (an installed tree); the source tree this binary was built from, only when the binary
    /// runs from inside it (a build in `.build/`); otherwise the copy embedded in the binary,
    /// unpacked into `<stateDirectory>/demo-library` (rewritten when it differs).
    public static func catalogPath(
        stateDirectory: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: String = CommandLine.arguments.first ?? ""
    ) throws(ConfigurationError) -> String {
        var candidates: [String] = []
        if let explicit = environment["DASHPORT_DEMO_CATALOG"], !explicit.isEmpty { candidates.append(explicit) }
        let binary = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
        candidates.append(
            binary.deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("share/dashport/demo/catalog.json").path)
        // #filePath = <package>/Sources/DashportServer/ServerCore.swift
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        if binary.path.hasPrefix(package.path + "/") {
            candidates.append(package.appendingPathComponent("Fixtures/demo/catalog.json").path)
        }
        for path in candidates where FileManager.default.fileExists(atPath: path) {
            return path
        }
        guard let stateDirectory else {
            throw ConfigurationError(
                "the demo library was not found (looked in \(candidates.joined(separator: ", "))); give --catalog FILE")
        }
        return try unpackEmbedded(into: stateDirectory + "/demo-library")
    }

    /// Writes the embedded demo library under `directory` (each file atomically, only when it
    /// differs) and returns its catalog's path.
    static func unpackEmbedded(into directory: String) throws(ConfigurationError) -> String {
        for (path, base64) in EmbeddedDemoLibrary.files {
            guard let data = Data(base64Encoded: base64) else {
                throw ConfigurationError("the embedded demo library is damaged (\(path)); give --catalog FILE")
            }
            let target = URL(fileURLWithPath: directory).appendingPathComponent(path)
            if FileManager.default.contents(atPath: target.path) == data { continue }
            do {
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try data.write(to: target, options: .atomic)
            } catch {
                throw ConfigurationError(
                    "cannot unpack the demo library into \(directory): \(ConfigurationError.reason(error)); give --catalog FILE")
            }
        }
        return directory + "/catalog.json"
    }
}
