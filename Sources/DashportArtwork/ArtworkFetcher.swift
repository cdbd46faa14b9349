import DashportFiles
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The limits one download must keep.
public struct ArtworkFetchLimits: Sendable, Hashable {
    /// Largest body accepted; checked on Content-Length and on every chunk received.
    public var maxBytes: Int
    /// Deadline from the first byte sent to the last byte received.
    public var timeout: Duration
    /// Redirects followed.
    public var maxRedirects: Int
    /// Whether `http://` (initial URL or redirect target) is accepted besides `https://`.
    public var allowPlainHTTP: Bool

    public init(maxBytes: Int, timeout: Duration, maxRedirects: Int, allowPlainHTTP: Bool) {
        self.maxBytes = maxBytes
        self.timeout = timeout
        self.maxRedirects = maxRedirects
        self.allowPlainHTTP = allowPlainHTTP
    }
}

/// Downloads an original. The default is ``URLSessionArtworkFetcher``; tests may inject another.
public protocol ArtworkFetcher: Sendable {
    /// Downloads `url` into a new file at `destination` and returns the number of bytes written.
    /// On failure the file may be left behind; the caller deletes it.
    func fetch(_ url: URL, into destination: String, limits: ArtworkFetchLimits) async throws(ArtworkError) -> Int
}

/// Downloads with FoundationNetworking, streaming to the destination file while it counts.
///
/// A data task with a delegate, rather than `download(for:)`, so that every limit acts early:
/// a non-2xx status or a too large Content-Length cancels before the body, the byte count is
/// checked per chunk, each redirect is counted (and its scheme checked) before it is followed,
/// and a deadline timer cancels whatever is still running.
public struct URLSessionArtworkFetcher: ArtworkFetcher {
    public init() {}

    public func fetch(_ url: URL, into destination: String, limits: ArtworkFetchLimits) async throws(ArtworkError) -> Int {
        guard Self.schemeAllowed(url, limits) else { throw .unsupportedScheme(ArtworkRegistry.redacted(url)) }
        let fd: Int32
        do { fd = try Files.create(destination) } catch { throw ArtworkError(error) }
        let seconds = Double(limits.timeout.components.seconds) + Double(limits.timeout.components.attoseconds) / 1e18
        let configuration = URLSessionConfiguration.ephemeral
        // FoundationNetworking truncates these to whole seconds (0.5 s times out at once), so they
        // are only a backstop, rounded up; the deadline timer below is the precise limit.
        configuration.timeoutIntervalForRequest = max(1, seconds.rounded(.up)) + 1
        configuration.timeoutIntervalForResource = max(1, seconds.rounded(.up)) + 1
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        let download = Download(fd: fd, limits: limits)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: configuration, delegate: download, delegateQueue: queue)
        let result = await withCheckedContinuation { continuation in
            download.start(session.dataTask(with: URLRequest(url: url)), on: queue, continuation: continuation, timeout: seconds)
        }
        session.invalidateAndCancel()
        return try result.get()
    }

    static func schemeAllowed(_ url: URL, _ limits: ArtworkFetchLimits) -> Bool {
        switch url.scheme?.lowercased() {
        case "https": true
        case "http": limits.allowPlainHTTP
        default: false
        }
    }
}

/// One download's delegate: all its state behind one lock, finished exactly once.
///
/// Every cancel happens on the delegate queue, between callbacks: FoundationNetworking traps
/// ("Received callback for HTTP redirection, but we're not waiting for it") when a task is
/// cancelled while it waits for a redirect or response decision.
private final class Download: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var fd: Int32
        var bytes = 0
        var redirects = 0
        var failure: ArtworkError?
        var finished = false
        var task: URLSessionTask?
        var continuation: Continuation?
    }

    private let limits: ArtworkFetchLimits
    private let state: Mutex<State>

    init(fd: Int32, limits: ArtworkFetchLimits) {
        self.limits = limits
        self.state = Mutex(State(fd: fd))
    }

    typealias Continuation = CheckedContinuation<Result<Int, ArtworkError>, Never>

    func start(_ task: URLSessionDataTask, on queue: OperationQueue, continuation: Continuation, timeout: Double) {
        state.withLock {
            $0.task = task
            $0.continuation = continuation
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
            queue.addOperation { [self] in
                record(.timeout)
                cancel()
                finish(nil)  // do not wait for a stuck connection to report
            }
        }
        task.resume()
    }

    /// Keeps the first failure; the download then ends with it whatever else happens.
    private func record(_ error: ArtworkError) {
        state.withLock { state in
            if state.failure == nil && !state.finished { state.failure = error }
        }
    }

    private func cancel() {
        state.withLock { $0.finished ? nil : $0.task }?.cancel()
    }

    private func finish(_ transportError: (any Error)?) {
        let (continuation, result) = state.withLock { state -> (Continuation?, Result<Int, ArtworkError>) in
            guard !state.finished else { return (nil, .success(0)) }
            state.finished = true
            close(state.fd)
            let result: Result<Int, ArtworkError>
            if let failure = state.failure {
                result = .failure(failure)
            } else if let transportError {
                result = .failure(Self.map(transportError))
            } else {
                result = .success(state.bytes)
            }
            defer { state.continuation = nil }
            return (state.continuation, result)
        }
        continuation?.resume(returning: result)
    }

    private static func map(_ error: any Error) -> ArtworkError {
        let nsError = error as NSError
        if nsError.domain == NSURLErrorDomain && nsError.code == NSURLErrorTimedOut { return .timeout }
        return .io(nsError.localizedDescription)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        let redirects = state.withLock { $0.redirects += 1; return $0.redirects }
        if redirects > limits.maxRedirects {
            record(.tooManyRedirects(limit: limits.maxRedirects))
            completionHandler(nil)  // the 3xx itself then arrives as the response, and is refused
        } else if let url = request.url, !URLSessionArtworkFetcher.schemeAllowed(url, limits) {
            record(.unsupportedScheme(ArtworkRegistry.redacted(url)))
            completionHandler(nil)
        } else {
            completionHandler(request)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if !(200..<300).contains(status) {
            record(.httpStatus(status))
        } else if response.expectedContentLength > Int64(limits.maxBytes) {
            record(.tooLarge(bytes: Int(clamping: response.expectedContentLength), limit: limits.maxBytes))
        }
        let refused = state.withLock { $0.failure != nil || $0.finished }
        completionHandler(refused ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let error = state.withLock { state -> ArtworkError? in
            // Chunks already queued keep arriving after a cancel: ignore them.
            guard !state.finished, state.failure == nil else { return nil }
            guard state.bytes + data.count <= limits.maxBytes else {
                return .tooLarge(bytes: state.bytes + data.count, limit: limits.maxBytes)
            }
            let fd = state.fd
            let written = data.withUnsafeBytes { raw in
                Result { () throws(FileError) in try Files.writeAll(raw, to: fd, path: "artwork download") }
            }
            if case .failure(let error) = written { return ArtworkError(error) }
            state.bytes += data.count
            return nil
        }
        if let error {
            record(error)
            cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        finish(error)
    }
}
