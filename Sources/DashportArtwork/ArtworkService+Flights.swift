import DashportClock
import DashportFiles
import Dispatch
import FoundationEssentials
import Glibc
import Synchronization
import DashportLog

/// The shared work behind requests: one download per key, one resize per key and box, and the
/// bookkeeping of failures (backoff, one report per URI).
extension ArtworkService {
    /// Makes the thumbnail of one key and box, answers `answered` with it, then caches it; runs
    /// once per flight. A cover is answered before its cache file is written (the write's
    /// `fsync` is not the car's wait, nor the actor's: it runs on another thread).
    func makeThumbnail(
        _ flight: FlightKey, _ registration: ArtworkRegistry.Registration, answered: OneShot<Result<ArtworkImage, ArtworkError>>
    ) async {
        let result = await produceThumbnail(flight, registration.source, answered: answered)
        switch result {
        case .success(let image):
            answered.fulfill(result)  // (a download answered already, before its original's commit)
            if backoffs.removeValue(forKey: flight.key) != nil {
                logger.info("artwork works again", ["key": flight.key.rawValue, "uri": registration.displayURI])
            }
            // A thumbnail that cannot be stored (a full disk) is still served; the cache logs the
            // fault once.
            await store(image, flight)
        case .failure(let error):
            recordFailure(flight.key, registration, error)
            answered.fulfill(result)
        }
        thumbnailFlights[flight] = nil
    }

    /// Writes a thumbnail into the cache on a Dispatch thread (atomically: temporary file,
    /// `fsync`, rename, the directory's `fsync`), then takes it into the cache's index.
    private func store(_ image: ArtworkImage, _ flight: FlightKey) async {
        let file = cache.thumbnailFile(image, key: flight.key, box: flight.box)
        let failure = await Self.fileWork(.utility) { () throws(FileError) in try Files.writeAtomically(file.bytes, to: file.path) }.value()
        try? cache.adoptThumbnail(key: flight.key, box: flight.box, size: file.bytes.count, failure: failure)
    }

    /// Runs a file operation that may `fsync` on a Dispatch thread, never on the actor; the
    /// returned value is its failure (nil: done), for the caller to await when it needs it.
    private static func fileWork(
        _ qos: DispatchQoS.QoSClass, _ body: @escaping @Sendable () throws(FileError) -> Void
    ) -> OneShot<FileError?> {
        let done = OneShot<FileError?>()
        DispatchQueue.global(qos: qos).async {
            do throws(FileError) {
                try body()
                done.fulfill(nil)
            } catch {
                done.fulfill(error)
            }
        }
        return done
    }

    private func produceThumbnail(
        _ flight: FlightKey, _ source: ArtworkRegistry.Source, answered: OneShot<Result<ArtworkImage, ArtworkError>>
    ) async -> Result<ArtworkImage, ArtworkError> {
        switch source {
        case .file(let path):
            // Resolved again now: the file (or a symlink on its way) may have changed since registration.
            switch registry.resolveFile(path) {
            case .failure(let error):
                return .failure(error)
            case .success(let (resolved, info)):
                guard info.size <= configuration.maxDownloadBytes else {
                    return .failure(.tooLarge(bytes: info.size, limit: configuration.maxDownloadBytes))
                }
                stats.resizes += 1
                return await scaler.thumbnail(of: resolved, fitting: flight.box)
            }
        case .remote(let url):
            let original = ArtworkDiskCache.Entry.original(flight.key)
            cache.pin(original)  // before the download lands, so adopting it cannot evict it
            defer { cache.unpin(original) }
            if !cache.contains(original), downloadFlights[flight.key] == nil {
                return await downloadAndScale(flight, url, answered: answered)
            }
            let path: String
            switch await originalFile(flight.key, url) {
            case .failure(let error): return .failure(error)
            case .success(let downloaded): path = downloaded
            }
            stats.resizes += 1
            let result = await scaler.thumbnail(of: path, fitting: flight.box)
            if case .failure(let error) = result, error != .timeout {
                cache.discard(original)  // undecodable or a bomb: keeping it would only take space
            }
            return result
        }
    }

    /// Downloads the original of `flight`'s key and decodes it while it is committed to the cache
    /// (`fsync`, rename, `fsync` of the directory, on another thread): the decode reads the
    /// download through a descriptor opened before the commit starts, so the rename cannot pull
    /// the file from under it. Other flights of the key wait for the commit, as for any download.
    /// A decoded cover answers `answered` at once; this returns once the commit is done too.
    private func downloadAndScale(
        _ flight: FlightKey, _ url: URL, answered: OneShot<Result<ArtworkImage, ArtworkError>>
    ) async -> Result<ArtworkImage, ArtworkError> {
        let key = flight.key
        // Other flights of the key wait for the original as for any download; this one does not
        // hop through tasks of its own (each hop waits for a thread on a busy machine).
        let original = OneShot<Result<String, ArtworkError>>()
        downloadFlights[key] = Task { await original.value() }
        let download: Download
        switch await fetchOriginal(key, url) {
        case .failure(let error):
            original.fulfill(.failure(error))
            downloadFlights[key] = nil
            return .failure(error)
        case .success(let fetched): download = fetched
        }
        let (temporary, path) = (download.temporary, cache.path(of: .original(key)))
        let committed = Self.fileWork(.userInitiated) { () throws(FileError) in try Files.commit(temporary, to: path) }
        stats.resizes += 1
        let result = await scaler.thumbnail(ofDescriptor: download.descriptor, fitting: flight.box)
        close(download.descriptor)
        if case .success = result { answered.fulfill(result) }  // served even if the original cannot be kept
        let failure = await committed.value()
        let stored: Result<String, ArtworkError>
        do throws(ArtworkError) {
            stored = .success(try cache.adoptCommitted(key, failure: failure))
        } catch {
            stored = .failure(error)
        }
        original.fulfill(stored)
        downloadFlights[key] = nil
        if case .failure(let error) = result, error != .timeout {
            cache.discard(.original(key))  // undecodable or a bomb: keeping it would only take space
        }
        if case .failure(let error) = stored, case .failure = result { return .failure(error) }
        return result  // a decoded cover is served even when its original could not be kept
    }

    /// A finished download: its temporary file, and a descriptor open on it for reading.
    struct Download: Sendable {
        var temporary: String
        var descriptor: Int32
    }

    /// Downloads `url` into a temporary file of the cache and opens it for reading.
    private func fetchOriginal(_ key: ArtworkKey, _ url: URL) async -> Result<Download, ArtworkError> {
        await withDownload(key, url) { temporary throws(ArtworkError) in
            let fd = open(temporary, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw ArtworkError.io(String(cString: strerror(errno))) }
            return Download(temporary: temporary, descriptor: fd)
        }
    }

    /// Downloads `url` into a temporary file of the cache (bounded by the fetch limits) and hands
    /// its path to `use`; on any failure the temporary file is removed (the next start deletes
    /// what a crash leaves).
    private func withDownload<T>(
        _ key: ArtworkKey, _ url: URL, _ use: (String) throws(ArtworkError) -> T
    ) async -> Result<T, ArtworkError> {
        let temporary = cache.temporaryPath()
        stats.downloads += 1
        logger.debug("downloading artwork", ["key": key.rawValue, "uri": ArtworkRegistry.redacted(url)])
        do throws(ArtworkError) {
            let bytes: Int
            do {
                bytes = try await fetcher.fetch(url, into: temporary, limits: configuration.fetchLimits)
            } catch {
                if case .storage = error { cache.recordWrite(failure: error) }  // the download had nowhere to go
                throw error
            }
            let limit = configuration.maxDownloadBytes
            guard bytes <= limit else { throw ArtworkError.tooLarge(bytes: bytes, limit: limit) }  // a fetcher that ignored it
            return .success(try use(temporary))
        } catch {
            try? Files.remove(temporary)
            return .failure(error)
        }
    }

    /// The path of the downloaded original, sharing one download among concurrent callers.
    private func originalFile(_ key: ArtworkKey, _ url: URL) async -> Result<String, ArtworkError> {
        if let path = cache.original(key) { return .success(path) }
        if let running = downloadFlights[key] { return await running.value }
        let flight = Task { await self.download(key, url) }
        downloadFlights[key] = flight
        return await flight.value
    }

    private func download(_ key: ArtworkKey, _ url: URL) async -> Result<String, ArtworkError> {
        let result = await withDownload(key, url) { temporary throws(ArtworkError) in try cache.adoptOriginal(temporary, for: key) }
        downloadFlights[key] = nil
        return result
    }

    /// Starts or extends the backoff of a failed URI and reports it once. Several flights of one
    /// key failing together (one shared download, several boxes) count as one failure.
    func recordFailure(_ key: ArtworkKey, _ registration: ArtworkRegistry.Registration, _ error: ArtworkError) {
        guard error.isFailureOfSource else { return }
        let now = clock.now
        var backoff = backoffs[key] ?? Backoff(retryAt: now)
        guard backoff.failures == 0 || now >= backoff.retryAt else { return }
        backoff.failures += 1
        let doublings = min(backoff.failures - 1, 20)
        backoff.retryAt = now + min(configuration.retryBackoff * (1 << doublings), configuration.maxRetryBackoff)
        if !backoff.reported {
            backoff.reported = true
            logger.warning("artwork failed: \(error)", ["key": key.rawValue, "uri": registration.displayURI])
            notify(.failed(key: key, uri: registration.displayURI, reason: error))
        }
        backoffs[key] = backoff
        if backoffs.count > configuration.maxRegisteredKeys {
            backoffs = backoffs.filter { registry.registration(for: $0.key) != nil }
        }
    }

    /// Waits for a shared flight at most `timeout`. The flight itself keeps running for the
    /// others who wait for it (and to fill the cache); only this caller stops waiting.
    static func value<Value: Sendable>(
        of flight: Task<Result<Value, ArtworkError>, Never>,
        within timeout: Duration,
        on clock: any DashportClock
    ) async -> Result<Value, ArtworkError> {
        let gate = ResumeOnce<Result<Value, ArtworkError>>()
        return await withCheckedContinuation { continuation in
            gate.arm(continuation)
            let timer = Task {
                do {
                    try await clock.sleep(for: timeout)
                    gate.resume(.failure(.timeout))
                } catch {}  // cancelled: the flight answered first
            }
            Task {
                gate.resume(await flight.value)
                timer.cancel()
            }
        }
    }
}

/// A continuation resumed by whichever of several racers comes first; the rest are ignored.
final class ResumeOnce<Value: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<Value, Never>?>(nil)

    func arm(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation.withLock { $0 = continuation }
    }

    func resume(_ value: Value) {
        let waiting = continuation.withLock { stored -> CheckedContinuation<Value, Never>? in
            defer { stored = nil }
            return stored
        }
        waiting?.resume(returning: value)
    }
}

/// A value set once and awaited by any number of tasks (set again: ignored).
final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiters: [CheckedContinuation<Value, Never>] = []
    }

    private let state = Mutex(State())

    func fulfill(_ value: Value) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, Never>] in
            guard state.value == nil else { return [] }
            state.value = value
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }

    func value() async -> Value {
        if let value = state.withLock({ $0.value }) { return value }
        return await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Value? in
                if let value = state.value { return value }
                state.waiters.append(continuation)
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }
}
