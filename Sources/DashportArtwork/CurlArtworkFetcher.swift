import CDashportCurl
import DashportFiles
import Dispatch
public import FoundationEssentials

/// Downloads with libcurl, writing each chunk to the destination file as it arrives.
///
/// Why libcurl and not FoundationNetworking: the cap must hold on the bytes *received*. URLSession
/// buffers on its own before a delegate sees a chunk, and decompresses `Content-Encoding: gzip`
/// by itself: a hostile cover host grew the process by hundreds of MiB past a 20 MB cap (issue 11).
/// Here libcurl hands over at most ``receiveBufferSize`` bytes at a time and the write callback
/// refuses the chunk that would pass the cap, which ends the transfer; nothing is buffered beyond
/// that one chunk. No `Accept-Encoding` is sent and nothing is decompressed: a body sent compressed
/// anyway is counted and capped as it came, and then fails to decode as an image.
///
/// The other limits: a Content-Length over the cap is refused before the body
/// (`CURLOPT_MAXFILESIZE_LARGE`), redirects are followed up to `maxRedirects` and only to the
/// allowed schemes (`https`, and `http` when allowed), the whole transfer has `timeout`
/// (connect included), and a cancelled task aborts it at the next progress callback.
public struct CurlArtworkFetcher: ArtworkFetcher {
    /// libcurl's receive buffer (`CURLOPT_BUFFERSIZE`): the most one write callback hands over.
    public static let receiveBufferSize = 16 * 1024

    public init() {}

    public func fetch(_ url: URL, into destination: String, limits: ArtworkFetchLimits) async throws(ArtworkError) -> Int {
        let outcome = await download(url, into: destination, limits: limits)
        if let error = outcome.error { throw error }
        return outcome.bytes
    }

    /// What one transfer did: bytes written, the largest chunk libcurl handed over (the most this
    /// fetcher ever held at once), and the failure if any.
    struct Outcome: Sendable, Equatable {
        var bytes = 0
        var largestChunk = 0
        var error: ArtworkError?
    }

    func download(_ url: URL, into destination: String, limits: ArtworkFetchLimits) async -> Outcome {
        guard Self.schemeAllowed(url, limits) else {
            return Outcome(error: .unsupportedScheme(ArtworkRegistry.redacted(url)))
        }
        let fd: Int32
        do { fd = try Files.create(destination) } catch { return Outcome(error: .storage(error.causeText)) }
        let transfer = CurlTransfer(fd: fd, path: destination, limits: limits)
        let text = url.absoluteString
        // libcurl's easy interface blocks: run it off the cooperative pool, on a Dispatch thread.
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(returning: transfer.perform(url: text))
                }
            }
        } onCancel: {
            transfer.cancel()
        }
    }

    static func schemeAllowed(_ url: URL, _ limits: ArtworkFetchLimits) -> Bool {
        switch url.scheme?.lowercased() {
        case "https": true
        case "http": limits.allowPlainHTTP
        default: false
        }
    }
}
