import CDashportCurl
import DashportFiles
import FoundationEssentials
import Glibc
import Synchronization

/// One libcurl transfer: the options, the write and progress callbacks, and the mapping of the
/// outcome to an ``ArtworkError``. Runs on one thread; ``cancel()`` may come from any.
final class CurlTransfer: Sendable {
    private struct State {
        /// The easy handle's address while the transfer runs (kept as a number: a raw pointer is
        /// not Sendable; only the transfer's own thread uses it, from the write callback).
        var handle: UInt = 0
        var outcome = CurlArtworkFetcher.Outcome()
        var statusChecked = false
        /// The Content-Length of the latest response, for the error when it is over the cap.
        var announced: Int?
    }

    private let fd: Int32
    /// The file `fd` writes, for errors.
    private let path: String
    private let limits: ArtworkFetchLimits
    private let state = Mutex(State())
    private let cancelled = Atomic<Bool>(false)

    init(fd: Int32, path: String, limits: ArtworkFetchLimits) {
        self.fd = fd
        self.path = path
        self.limits = limits
    }

    func cancel() { cancelled.store(true, ordering: .relaxed) }

    /// Runs the transfer to its end (blocking) and closes the file.
    func perform(url: String) -> CurlArtworkFetcher.Outcome {
        defer { close(fd) }
        guard dashport_curl_load() == 0 else {
            return CurlArtworkFetcher.Outcome(error: .io("cannot load libcurl: " + String(cString: dashport_curl_load_error())))
        }
        guard let curl = dashport_curl_easy_init() else { return CurlArtworkFetcher.Outcome(error: .io("cannot start libcurl")) }
        defer { dashport_curl_easy_cleanup(curl) }
        state.withLock { $0.handle = UInt(bitPattern: curl) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        let protocols = limits.allowPlainHTTP ? "http,https" : "https"
        let milliseconds = max(
            1,
            Int(limits.timeout.components.seconds) * 1000
                + Int(limits.timeout.components.attoseconds / 1_000_000_000_000_000))
        let settings: [CURLcode] = [
            dashport_curl_set_string(curl, CURLOPT_URL, url),
            dashport_curl_set_string(curl, CURLOPT_PROTOCOLS_STR, protocols),
            dashport_curl_set_string(curl, CURLOPT_REDIR_PROTOCOLS_STR, protocols),
            dashport_curl_set_long(curl, CURLOPT_FOLLOWLOCATION, 1),
            dashport_curl_set_long(curl, CURLOPT_MAXREDIRS, max(0, limits.maxRedirects)),
            dashport_curl_set_long(curl, CURLOPT_TIMEOUT_MS, milliseconds),
            dashport_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT_MS, milliseconds),
            dashport_curl_set_long(curl, CURLOPT_NOSIGNAL, 1),
            dashport_curl_set_offset(curl, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limits.maxBytes)),
            dashport_curl_set_long(curl, CURLOPT_BUFFERSIZE, CurlArtworkFetcher.receiveBufferSize),
            dashport_curl_set_string(curl, CURLOPT_USERAGENT, "Dashport"),
            dashport_curl_set_write(curl, curlWrite),
            dashport_curl_set_pointer(curl, CURLOPT_WRITEDATA, context),
            dashport_curl_set_header(curl, curlHeader),
            dashport_curl_set_pointer(curl, CURLOPT_HEADERDATA, context),
            dashport_curl_set_xferinfo(curl, curlProgress),
            dashport_curl_set_pointer(curl, CURLOPT_XFERINFODATA, context),
            dashport_curl_set_long(curl, CURLOPT_NOPROGRESS, 0),
        ]
        if let refused = settings.first(where: { $0 != CURLE_OK }) {
            return CurlArtworkFetcher.Outcome(error: .io("libcurl refused an option: \(Self.text(refused))"))
        }
        let code = withExtendedLifetime(self) { dashport_curl_easy_perform(curl) }
        var outcome = state.withLock { state -> CurlArtworkFetcher.Outcome in
            state.handle = 0
            return state.outcome
        }
        if outcome.error == nil { outcome.error = mapped(code, curl) }
        return outcome
    }

    /// One chunk of the body: refused (ending the transfer) when the status is not 2xx, when it
    /// would pass the cap, or when it cannot be written.
    fileprivate func write(_ data: UnsafeRawPointer, _ count: Int) -> Bool {
        state.withLock { state in
            if !state.statusChecked, let handle = UnsafeMutableRawPointer(bitPattern: state.handle) {
                state.statusChecked = true
                let status = dashport_curl_info_long(handle, CURLINFO_RESPONSE_CODE)
                guard (200..<300).contains(status) else {
                    state.outcome.error = .httpStatus(status)
                    return false
                }
            }
            state.outcome.largestChunk = max(state.outcome.largestChunk, count)
            guard state.outcome.bytes + count <= limits.maxBytes else {
                state.outcome.error = .tooLarge(bytes: state.outcome.bytes + count, limit: limits.maxBytes)
                return false
            }
            do throws(FileError) {
                try Files.writeAll(UnsafeRawBufferPointer(start: data, count: count), to: fd, path: path)
            } catch {
                state.outcome.error = .storage(error.causeText)  // the disk, not the cover host
                return false
            }
            state.outcome.bytes += count
            return true
        }
    }

    /// One header line: keeps the latest response's Content-Length (a status line starts a new
    /// response, after a redirect).
    fileprivate func header(_ data: UnsafeRawPointer, _ count: Int) {
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: min(count, 256)), as: UTF8.self)
        let lowered = line.lowercased()
        state.withLock { state in
            if lowered.hasPrefix("http/") {
                state.announced = nil
            } else if lowered.hasPrefix("content-length:") {
                state.announced = Int(lowered.dropFirst("content-length:".count).trimming(while: \.isWhitespace))
            }
        }
    }

    fileprivate var shouldAbort: Bool { cancelled.load(ordering: .relaxed) }

    private func mapped(_ code: CURLcode, _ curl: UnsafeMutableRawPointer) -> ArtworkError? {
        switch code {
        case CURLE_OK:
            let status = dashport_curl_info_long(curl, CURLINFO_RESPONSE_CODE)
            return (200..<300).contains(status) ? nil : .httpStatus(status)
        case CURLE_OPERATION_TIMEDOUT: return .timeout
        case CURLE_TOO_MANY_REDIRECTS: return .tooManyRedirects(limit: limits.maxRedirects)
        case CURLE_FILESIZE_EXCEEDED:
            let announced = state.withLock { $0.announced } ?? Int(dashport_curl_info_offset(curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T))
            return .tooLarge(bytes: announced, limit: limits.maxBytes)
        case CURLE_UNSUPPORTED_PROTOCOL:
            let target = dashport_curl_info_string(curl, CURLINFO_REDIRECT_URL) ?? dashport_curl_info_string(curl, CURLINFO_EFFECTIVE_URL)
            let url = target.flatMap { URL(string: String(cString: $0)) }
            return .unsupportedScheme(url.map(ArtworkRegistry.redacted) ?? "a redirect to another scheme")
        case CURLE_ABORTED_BY_CALLBACK: return .io("download cancelled")
        default: return .io(Self.text(code))
        }
    }

    static func text(_ code: CURLcode) -> String {
        dashport_curl_easy_strerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)"
    }
}

/// CURLOPT_WRITEFUNCTION: returning less than `size * count` makes libcurl end the transfer.
private let curlWrite: dashport_curl_write_callback = { data, size, count, user in
    guard let user else { return 0 }
    let total = size * count
    guard total > 0, let data else { return total }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
    return transfer.write(UnsafeRawPointer(data), total) ? total : 0
}

/// CURLOPT_HEADERFUNCTION: every header line of every response, redirects included.
private let curlHeader: dashport_curl_write_callback = { data, size, count, user in
    let total = size * count
    guard let user, let data, total > 0 else { return total }
    Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue().header(UnsafeRawPointer(data), total)
    return total
}

/// CURLOPT_XFERINFOFUNCTION: non-zero aborts the transfer (the fetching task was cancelled).
private let curlProgress: dashport_curl_xferinfo_callback = { user, _, _, _, _ in
    guard let user else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue().shouldAbort ? 1 : 0
}
