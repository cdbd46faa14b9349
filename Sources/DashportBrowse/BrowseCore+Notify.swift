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
        subscribers[key] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(key) }
        }
        return stream
    }

    /// How many subscribers are connected.
    public var subscriberCount: Int { subscribers.count }

    func unsubscribe(_ key: Int) {
        subscribers[key] = nil
    }

    func broadcast(_ notification: BrowseNotification) {
        for continuation in subscribers.values {
            continuation.yield(notification)
        }
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
