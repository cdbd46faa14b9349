public import DashportClock
public import DashportLog
import FoundationEssentials

/// The artwork endpoint: serves registered covers, downscaled to the box a car asks for.
///
/// The browse tree calls ``register(_:)`` for every artworkUri it hands out and gives the car the
/// key instead. A request for a key and a box is answered from the disk cache, or else the
/// original is downloaded once (or read from a file inside the roots), decoded, fitted into the
/// box (never upscaled), encoded and cached. Concurrent requests for one key share one download;
/// for one key and box, also one resize. A failing URI is answered with an error at once,
/// reported once as `artworkFailed` (degraded) on ``notifications()``, and not tried again until
/// its backoff (5 s, doubling, up to 10 min by default) has passed. Every wait has a deadline.
public actor ArtworkService {
    let configuration: ArtworkConfiguration
    let logger: Logger
    let fetcher: any ArtworkFetcher
    let clock: any DashportClock
    let scaler: ArtworkScaler
    var registry: ArtworkRegistry
    var cache: ArtworkDiskCache
    var stats = ArtworkStatistics()

    struct Backoff {
        var failures = 0
        var retryAt: ClockInstant
        /// Whether `artworkFailed` went out for this URI since it last worked.
        var reported = false
    }

    struct FlightKey: Hashable {
        var key: ArtworkKey
        var box: ArtworkBox
    }

    var backoffs: [ArtworkKey: Backoff] = [:]
    var thumbnailFlights: [FlightKey: Task<Result<ArtworkImage, ArtworkError>, Never>] = [:]
    var downloadFlights: [ArtworkKey: Task<Result<String, ArtworkError>, Never>] = [:]
    /// Covers in the making, answered or not, until their files are in the cache (``settled()``).
    var making: [UInt64: Task<Void, Never>] = [:]
    var nextMaking: UInt64 = 0
    private var subscribers: [Int: AsyncStream<ArtworkNotification>.Continuation] = [:]
    private var nextSubscriber = 0
    private var loggedOnce = BoundedOnceSet(capacity: 256)
    private var sizes: ArtworkSizeBudget

    /// - Parameters:
    ///   - fetcher: downloads originals; `nil` means ``CurlArtworkFetcher``.
    ///   - clock: decides when a failed URI may be tried again and when a registered file is due
    ///     for a check; `nil` means the system clock.
    public init(
        configuration: ArtworkConfiguration,
        logger: Logger = .silent,
        fetcher: (any ArtworkFetcher)? = nil,
        clock: (any DashportClock)? = nil
    ) {
        let logger = logger.labelled("artwork")
        self.configuration = configuration
        self.logger = logger
        self.fetcher = fetcher ?? CurlArtworkFetcher()
        self.clock = clock ?? SystemClock()
        self.scaler = ArtworkScaler(
            maxPixels: configuration.maxPixels,
            jpegQuality: configuration.jpegQuality,
            maxConcurrentDecodes: configuration.maxConcurrentDecodes
        )
        self.registry = ArtworkRegistry(
            roots: configuration.roots,
            allowPlainHTTP: configuration.allowPlainHTTP,
            capacity: configuration.maxRegisteredKeys,
            recheckInterval: configuration.fileRecheckInterval
        )
        self.cache = ArtworkDiskCache(directory: configuration.cacheDirectory, maxBytes: configuration.maxCacheBytes, logger: logger)
        self.sizes = ArtworkSizeBudget(maxPerKey: configuration.maxSizesPerCover, maxKeys: configuration.maxRegisteredKeys)
        for root in registry.missingRoots {
            logger.warning("artwork root does not exist; no file under it is served", ["root": root])
        }
    }

    /// Registers an artwork URI and returns the opaque key a car may ask for. `nil` (logged once
    /// per URI) when the scheme is not https (or http when allowed) or file, or when a file is
    /// missing or lies outside the roots. Registering again is cheap (a lookup; for a file, one
    /// `stat` per ``ArtworkConfiguration/fileRecheckInterval``) and keeps the key alive.
    public func register(_ uri: String) -> ArtworkKey? {
        switch registry.register(uri, at: clock.now) {
        case .success(let key):
            return key
        case .failure(let error):
            if loggedOnce.insert("uri \(uri)") { logger.warning("artwork URI refused: \(error)") }
            return nil
        }
    }

    /// Registers every URI in one call (one hop onto this actor for a whole browse answer) and
    /// returns the keys of those accepted, by URI.
    public func register(all uris: some Sequence<String>) -> [String: ArtworkKey] {
        var keys: [String: ArtworkKey] = [:]
        for uri in uris {
            if let key = register(uri) { keys[uri] = key }
        }
        return keys
    }

    /// The cover of `key`, fitted into `width` x `height` (0 means the configured default size).
    ///
    /// Throws at once for an unregistered key, a box outside `1...maxSize`, or a URI in backoff;
    /// otherwise within the request deadline at the latest.
    public func image(for key: ArtworkKey, width: Int, height: Int) async throws(ArtworkError) -> ArtworkImage {
        let result = await answer(key, width: width, height: height)
        switch result {
        case .success(let image):
            return image
        case .failure(let error):
            stats.failures += 1
            throw error
        }
    }

    /// The cover of `key` fitted into `width` x `height` if it is in the cache now, else nil:
    /// never downloads, decodes or waits for a flight. What a caller that must not wait asks first
    /// (a track change's first metadata), so what it gets depends on what is cached, not on time.
    public func cachedImage(for key: ArtworkKey, width: Int, height: Int) -> ArtworkImage? {
        let box = ArtworkBox(
            width: width == 0 ? configuration.defaultSize : width,
            height: height == 0 ? configuration.defaultSize : height
        )
        guard (1...configuration.maxSize).contains(box.width), (1...configuration.maxSize).contains(box.height),
            registry.registration(for: key) != nil, let image = cache.thumbnail(key, box)
        else { return nil }
        stats.cacheHits += 1
        return image
    }

    /// A new stream of notifications (`artworkFailed`). Each call is an independent subscriber;
    /// the newest 64 are kept if the subscriber falls behind.
    public func notifications() -> AsyncStream<ArtworkNotification> {
        let (stream, continuation) = AsyncStream.makeStream(of: ArtworkNotification.self, bufferingPolicy: .bufferingNewest(64))
        let id = nextSubscriber
        nextSubscriber += 1
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return stream
    }

    /// Counters since start.
    public func statistics() -> ArtworkStatistics { stats }

    private func answer(_ key: ArtworkKey, width: Int, height: Int) async -> Result<ArtworkImage, ArtworkError> {
        let asked = ArtworkBox(
            width: width == 0 ? configuration.defaultSize : width,
            height: height == 0 ? configuration.defaultSize : height
        )
        guard (1...configuration.maxSize).contains(asked.width), (1...configuration.maxSize).contains(asked.height) else {
            return .failure(.invalidSize(width: width, height: height))
        }
        guard let registration = registry.registration(for: key) else {
            let shown = String(key.rawValue.prefix(64))  // the key comes from the car: keep what is kept small
            if loggedOnce.insert("key \(shown)") { logger.warning("artwork request for an unregistered key", ["key": shown]) }
            return .failure(.notRegistered(key))
        }
        let (box, snapped) = sizes.box(for: key, asked: asked)
        if snapped, loggedOnce.insert("sizes \(key.rawValue)") {
            logger.notice(
                "a car asks for more than \(configuration.maxSizesPerCover) sizes of one cover: answering with the nearest made",
                ["key": key.rawValue, "asked": "\(asked)", "answered": "\(box)"])
        }
        if let image = cache.thumbnail(key, box) {
            stats.cacheHits += 1
            return .success(image)
        }
        let now = clock.now
        if let backoff = backoffs[key], now < backoff.retryAt {
            return .failure(.backingOff(retryAfter: now.duration(to: backoff.retryAt)))
        }
        let flightKey = FlightKey(key: key, box: box)
        let flight: Task<Result<ArtworkImage, ArtworkError>, Never>
        if let running = thumbnailFlights[flightKey] {
            flight = running
        } else {
            // The flight is answered as soon as the cover is decoded; writing it to the cache
            // (and the original's commit) goes on after, and the flight stays until then, so a
            // request meanwhile shares it instead of making the cover again.
            let answered = OneShot<Result<ArtworkImage, ArtworkError>>()
            flight = Task { await answered.value() }
            thumbnailFlights[flightKey] = flight
            let id = nextMaking
            nextMaking += 1
            making[id] = Task {
                await self.makeThumbnail(flightKey, registration, answered: answered)
                self.making[id] = nil
            }
        }
        return await Self.value(of: flight, within: configuration.requestTimeout, on: clock)
    }

    /// Waits until every cover in the making has been answered and written to the cache (or
    /// failed to be): a stopping server, and tests that read the cache right after an answer.
    public func settled() async {
        while let next = making.values.first { await next.value }
    }

    func notify(_ notification: ArtworkNotification) {
        for continuation in subscribers.values { continuation.yield(notification) }
    }

    private func unsubscribe(_ id: Int) {
        subscribers[id] = nil
    }
}

/// Remembers up to `capacity` strings, so each thing is logged once without unbounded memory.
struct BoundedOnceSet {
    let capacity: Int
    private var seen: Set<String> = []

    init(capacity: Int) { self.capacity = capacity }

    /// True the first time `value` is seen (while there is room; afterwards always false).
    mutating func insert(_ value: String) -> Bool {
        guard seen.count < capacity else { return false }
        return seen.insert(value).inserted
    }
}
