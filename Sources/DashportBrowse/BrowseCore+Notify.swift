// Sources/DashportBrowse/BrowseCore+Notify.swift - pushes to connected cars, and reports.

import DashportLog

extension BrowseCore {
    /// How many notifications a subscriber that does not keep up may have waiting; older ones are
    /// dropped first (a car that misses a children-changed still sees the list on its next browse).
    static let subscriberBuffer = 256
    /// How many reports ``reports`` keeps.
    static let recentReportLimit = 256
    /// How many distinct reports the core remembers to emit each only once; past it, it forgets.
    static let dedupeLimit = 4096

    /// A stream of every children-changed and report from now on, for one connected car (or a
    /// logger). It ends when the subscriber stops iterating or drops it; with no subscribers a
    /// push costs nothing.
    public func subscribe() -> AsyncStream<BrowseNotification> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: BrowseNotification.self, bufferingPolicy: .bufferingNewest(Self.subscriberBuffer))
        let key = nextSubscriber
        nextSubscriber += 1
        subscribers[key] = .stream(continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(key) }
        }
        return stream
    }

    /// One subscriber: a stream (``subscribe()``) or a handler called inside the core (``subscribe(_:)``).
    enum Subscriber {
        case stream(AsyncStream<BrowseNotification>.Continuation)
        case handler(@Sendable (BrowseNotification) -> Bool)
    }

    /// Subscribes a handler instead of a stream: every children-changed and report from now on,
    /// handed to `deliver` inside the core as it happens, so the subscriber needs no task of its
    /// own to wait on a stream (a connected car's media channel posts them into its bounded
    /// mailbox). `deliver` must not block; it returns false once it wants no more, and is then
    /// dropped. Returns the key for ``unsubscribe(_:)``.
    public func subscribe(_ deliver: @escaping @Sendable (BrowseNotification) -> Bool) -> Int {
        let key = nextSubscriber
        nextSubscriber += 1
        subscribers[key] = .handler(deliver)
        return key
    }

    /// How many subscribers are connected.
    public var subscriberCount: Int { subscribers.count }

    /// How many of them are handlers (a test seam).
    var handlerSubscriberCount: Int {
        subscribers.values.count { if case .handler = $0 { true } else { false } }
    }

    /// Ends a subscription (stream or handler); unknown keys are ignored.
    public func unsubscribe(_ key: Int) {
        subscribers[key] = nil
    }

    func broadcast(_ notification: BrowseNotification) {
        var gone: [Int] = []
        for (key, subscriber) in subscribers {
            switch subscriber {
            case .stream(let continuation): continuation.yield(notification)
            case .handler(let deliver): if !deliver(notification) { gone.append(key) }
            }
        }
        for key in gone { subscribers[key] = nil }
    }

    /// Logs, keeps and pushes a report; with `once`, only the first time this exact report is made
    /// (until the next invalidate). Cache write faults are reported by the cache once per fault
    /// (start and end), so a second fault with the same words is logged again.
    func emit(_ report: BrowseReport, once: Bool = true) {
        let episodic = report.code == BrowseReportCode.cacheWriteFailed || report.code == BrowseReportCode.cacheWritesResumed
        if once && !episodic {
            if reported.count >= Self.dedupeLimit { reported.removeAll() }
            guard reported.insert(report).inserted else { return }
        }
        logger.log(Self.level(of: report.code), report.message, ["code": report.code, "item": report.itemId ?? "-"])
        recentReports.append(report)
        if recentReports.count > Self.recentReportLimit {
            recentReports.removeFirst(recentReports.count - Self.recentReportLimit)
        }
        broadcast(.report(report))
    }

    private static func level(of code: String) -> LogLevel {
        switch code {
        case BrowseReportCode.cacheRefreshed, BrowseReportCode.errorHidden, BrowseReportCode.cacheWritesResumed: .info
        case BrowseReportCode.rootRejected, BrowseReportCode.depthCut, BrowseReportCode.itemInvalid,
            BrowseReportCode.listCut:
            .notice
        default: .warning
        }
    }
}
