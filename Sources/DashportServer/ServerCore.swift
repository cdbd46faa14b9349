import DashportClock
import Foundation
import DashportArtwork
import DashportBrowse
import DashportLog
import DashportSession

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
    /// Forwards browse reports and artwork failures into the session's error channel.
    let reporters: [Task<Void, Never>]
    /// Memoised media-channel answers, dropped as the browse core reports changes.
    let answers: AnswerMemo

    public init(browse: BrowseCore, artwork: ArtworkService, session: SessionCore, clock: any DashportClock, catalogPath: String) {
        let answers = AnswerMemo()
        self.answers = answers
        self.reporters = ServerCore.forwardReports(browse: browse, artwork: artwork, to: session, answers: answers)
        self.browse = browse
        self.artwork = artwork
        self.session = session
        self.clock = clock
        self.catalogPath = catalogPath
    }

    /// Loads the catalog (refusing one that fails validation, with the file, item and problem),
    /// opens the browse and artwork caches and restores the persisted session, all under
    /// `stateDirectory`.
    /// `provider` replaces the catalog (a music server, or a test's slow or absent provider; file
    /// covers are then served from the catalog's folder still); `artworkFetcher` replaces the
    /// URLSession downloader (tests serve https covers offline); `clock` is the time every part reads.
    public static func make(
        configuration: ServerConfiguration, logger: Logger,
        provider customProvider: (any BrowseProvider)? = nil, artworkFetcher: (any ArtworkFetcher)? = nil,
        clock: any DashportClock = SystemClock()
    ) async throws -> ServerCore {
        let catalogPath = try configuration.catalog ?? DemoLibrary.catalogPath()
        let provider: any BrowseProvider
        if let customProvider {
            provider = customProvider
        } else {
            do {
                provider = try CatalogProvider(contentsOf: catalogPath)
            } catch {
                throw ConfigurationError("catalog refused: \(error)")
            }
        }
        let state = configuration.stateDirectory
        let cache = BrowseCache(directory: state + "/browse-cache", logger: logger)
        let browse = BrowseCore(provider: provider, cache: cache, configuration: BrowseConfiguration(clock: clock), logger: logger)

        let artworkConfiguration = ArtworkConfiguration(
            roots: [URL(fileURLWithPath: catalogPath).deletingLastPathComponent().path],
            cacheDirectory: state + "/artwork-cache")
        let artwork = ArtworkService(configuration: artworkConfiguration, logger: logger, fetcher: artworkFetcher, clock: clock)

        let handler = DemoPlaybackHandler(library: provider, clock: clock, remoteVolume: configuration.session.remoteVolume)
        let session = SessionCore(
            handler: handler, clock: clock,
            persistence: SessionStore(directory: URL(fileURLWithPath: state + "/session")),
            configuration: configuration.session.sessionConfiguration,
            logger: logger.labelled("session"))
        let restored = await session.restore()
        logger.labelled("session").info("session restore: \(restored)")
        return ServerCore(browse: browse, artwork: artwork, session: session, clock: clock, catalogPath: catalogPath)
    }
}

extension ServerCore {
    /// Browse reports that concern every car (a discarded cache, a provider that is down) and
    /// artwork failures become session errors, so every car that takes them is told. Reports caused
    /// by one car's profile (a dropped tab, a cut branch) are not forwarded here: each car's media
    /// channel tells that car (``carError(for:)``). What cars read names items and keys, never
    /// server paths; the browse core's and artwork pipeline's logs keep the detail.
    /// Children-changed notifications also drop the memoised answers for that parent.
    static func forwardReports(browse: BrowseCore, artwork: ArtworkService, to session: SessionCore,
                               answers: AnswerMemo) -> [Task<Void, Never>] {
        let fromBrowse = Task {
            for await notification in await browse.subscribe() {
                if case .childrenChanged(let parentId) = notification { answers.invalidate(parentId) }
                guard case .report(let report) = notification, !report.isCarSpecific,
                    let error = sessionError(for: report)
                else { continue }
                await session.report(error)
            }
        }
        let fromArtwork = Task {
            for await case .failed(let key, _, let reason) in await artwork.notifications() {
                await session.report(SessionError(
                    code: .artworkFailed, severity: .degraded,
                    message: "a cover could not be loaded (\(artworkFailureKind(reason)))", subject: key.rawValue))
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
    }
}

/// Finds the embedded demo library (`Fixtures/demo/catalog.json`).
public enum DemoLibrary {
    /// `$DASHPORT_DEMO_CATALOG`, else the catalog next to the sources this binary was built from,
    /// else `Fixtures/demo/catalog.json` under the working directory.
    public static func catalogPath(environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigurationError) -> String {
        var candidates: [String] = []
        if let explicit = environment["DASHPORT_DEMO_CATALOG"], !explicit.isEmpty { candidates.append(explicit) }
        // #filePath = <package>/Sources/DashportServer/ServerCore.swift
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(package.appendingPathComponent("Fixtures/demo/catalog.json").path)
        candidates.append(FileManager.default.currentDirectoryPath + "/Fixtures/demo/catalog.json")
        for path in candidates where FileManager.default.fileExists(atPath: path) {
            return path
        }
        throw ConfigurationError(
            "the demo library was not found (looked in \(candidates.joined(separator: ", "))); give --catalog FILE")
    }
}
