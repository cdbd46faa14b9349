import Foundation
import DashportArtwork
import DashportBrowse
import DashportLog
@testable import DashportServer

/// A real server on 127.0.0.1:0 with its own state directory, for one test.
struct TestServer {
    let server: DashportServer
    let log: CollectingSink
    let stateDirectory: String

    static func start(
        stateDirectory: String? = nil, provider: (any BrowseProvider)? = nil,
        artworkFetcher: (any ArtworkFetcher)? = nil, _ adjust: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        let directory = stateDirectory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("dashport-server-test-\(UUID().uuidString)").path
        var configuration = ServerConfiguration()
        configuration.listen = "127.0.0.1:0"
        configuration.stateDirectory = directory
        adjust(&configuration)
        let sink = CollectingSink()
        let logger = Logger(label: "test", level: .debug, sink: sink)
        let server = try await DashportServer.start(configuration: configuration, logger: logger, provider: provider, artworkFetcher: artworkFetcher)
        return TestServer(server: server, log: sink, stateDirectory: directory)
    }

    func stop(keepingState: Bool = false) async {
        await server.stop(grace: .seconds(2))
        if !keepingState { try? FileManager.default.removeItem(atPath: stateDirectory) }
    }
}
