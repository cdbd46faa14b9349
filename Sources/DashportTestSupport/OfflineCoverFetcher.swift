public import DashportArtwork
public import Foundation
import Synchronization

/// A test server's cover fetcher that serves every https cover from one local file (this machine
/// has no network, and a cover that cannot be fetched is an error a car or a page shows), counting
/// what was asked.
public final class OfflineCoverFetcher: ArtworkFetcher {
    public let source: String
    private let downloads = Mutex<[String]>([])

    public init(source: String) { self.source = source }

    /// The URLs fetched so far, in order.
    public var asked: [String] { downloads.withLock { $0 } }

    public func fetch(_ url: URL, into destination: String, limits: ArtworkFetchLimits) async throws(ArtworkError) -> Int {
        downloads.withLock { $0.append(url.absoluteString) }
        do {
            try FileManager.default.copyItem(atPath: source, toPath: destination)
            return try Data(contentsOf: URL(fileURLWithPath: destination)).count
        } catch {
            throw .io("\(error)")
        }
    }
}
