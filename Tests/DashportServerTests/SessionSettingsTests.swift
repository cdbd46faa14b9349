import Testing
import DashportArtwork
import DashportBrowse
import DashportSession
import DashportCommandLine
@testable import DashportServer

/// Session defaults from the command line and the config file, and what cars read of reports.
@Suite("Session settings and car-facing reports")
struct SessionSettingsTests {
    @Test func jumpDistancesAndOtherDefaultsComeFromTheCommandLineAndTheFile() throws {
        let defaults = try ConfigurationParser.parse(arguments: []).session.sessionConfiguration
        #expect(defaults.jumpForwardMs == 15_000 && defaults.jumpBackMs == 15_000)
        let file = "jump-forward = 30\nremote-volume = relative\nmax-queue = 50\n"
        let config = try ConfigurationParser.parse(
            arguments: ["--config", "f.conf", "--jump-back", "5.5", "--jump-forward=45", "--checkpoint-interval", "10"],
            readFile: { _ in file })
        let session = config.session.sessionConfiguration
        #expect(session.jumpForwardMs == 45_000)  // the command line wins over the file
        #expect(session.jumpBackMs == 5_500)
        #expect(session.checkpointIntervalMs == 10_000)
        #expect(session.maxQueueLength == 50)
        #expect(config.session.remoteVolume == .relative)
        #expect(ConfigurationParser.serveOptions.contains { $0.name == "jump-forward" })
    }

    @Test(arguments: [
        (["--jump-forward", "0"], "--jump-forward: jump-forward needs a number of at least 0.001, got '0'"),
        (["--remote-volume", "loud"], "--remote-volume: remote-volume must be absolute, relative, fixed or local; got 'loud'"),
        (["--max-queue", "-1"], "--max-queue: max-queue needs a whole number of at least 1, got '-1'"),
    ])
    func badSessionSettingsAreRefusedClearly(arguments: [String], message: String) {
        #expect(throws: ConfigurationError(message)) { try ConfigurationParser.parse(arguments: arguments) }
    }

    /// Cars read items and keys, never server paths; the log keeps the detail.
    @Test func reportsForCarsNameNoServerPaths() {
        let discarded = BrowseReport(
            code: BrowseReportCode.cacheDiscarded, message: "cache file /home/me/.local/state/dashport/browse-cache/x discarded: bad",
            itemId: "x")
        let error = ServerCore.sessionError(for: discarded)
        #expect(error?.code == .browseCacheDiscarded)
        #expect(error?.message.contains("/") == false)
        #expect(error?.subject == nil)
        let dropped = BrowseReport(
            code: BrowseReportCode.rootRejected, message: "root entry 'Radio' (tab-radio) dropped: over the cap of 3 tabs",
            itemId: "tab-radio")
        #expect(ServerCore.sessionError(for: dropped)?.subject == "tab-radio")
        #expect(ServerCore.artworkFailureKind(.io("/home/me/covers/a.jpg: permission denied")) == "could not be fetched")
    }

    /// The demo catalog carries full metadata, and a played item takes it into the session.
    @Test func theDemoCatalogCarriesFullMetadata() async throws {
        let provider = try CatalogProvider(contentsOf: try DemoLibrary.catalogPath())
        let track = try #require(try await provider.item(id: "nl-2"))
        let item = MediaItem(track)
        #expect(item.genre == "Ambient" && item.year == 2021 && item.trackNumber == 2)
        let radio = try #require(try await provider.item(id: "radio-coastal"))
        #expect(MediaItem(radio).isLive == true && !MediaItem(radio).hasScrubber)
    }
}
