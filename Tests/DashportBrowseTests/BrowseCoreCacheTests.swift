// Tests/DashportBrowseTests/BrowseCoreCacheTests.swift - reconnecting while the provider is slow or down.

import DashportTestSupport
import DashportClock
import Foundation
import Synchronization
import Testing
@testable import DashportBrowse

@Suite struct BrowseCoreCacheTests {
    static let before: [String: [BrowseItem]] = [
        BrowseItem.rootId: [tab("recent"), tab("albums"), tab("artists"), tab("podcasts")],
        "recent": [track("song-1"), track("song-2")],
        "albums": [tab("album-1")],
        "artists": [tab("artist-1")],
        "podcasts": [track("episode-1")],
    ]

    /// The same tree, with a new song in Recent and a new episode in Podcasts.
    static var after: [String: [BrowseItem]] {
        var tree = before
        tree["recent"] = [track("song-3"), track("song-1"), track("song-2")]
        tree["podcasts"] = [track("episode-2"), track("episode-1")]
        return tree
    }

    /// A first session that browses the whole tree, filling the cache in `folder`.
    static func fillCache(_ folder: TemporaryDirectory) async {
        let core = makeCore(FakeProvider(tree: before), cache: BrowseCache(directory: folder.path))
        for id in [BrowseItem.rootId, "recent", "albums", "artists", "podcasts"] {
            _ = await core.children(of: id, page: 0, pageSize: 10, for: .full)
        }
    }

    /// Collects notifications until the cache-refreshed report.
    static func untilRefreshed(_ stream: AsyncStream<BrowseNotification>) async -> (changed: [String?], refreshed: BrowseReport?) {
        var changed: [String?] = []
        for await notification in stream {
            switch notification {
            case .childrenChanged(let parentId): changed.append(parentId)
            case .report(let report) where report.code == BrowseReportCode.cacheRefreshed: return (changed, report)
            case .report: continue
            }
        }
        return (changed, nil)
    }

    @Test func slowProviderOnReconnectServesTheCacheThenPushesWhatChanged() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        await Self.fillCache(folder)

        // The next session: the provider is slow to come up, and its content moved on meanwhile.
        let provider = FakeProvider(tree: Self.after)
        provider.hold()
        let clock = ManualClock()
        let core = makeCore(provider, cache: BrowseCache(directory: folder.path), clock: clock)
        let notifications = await core.subscribe()

        async let root = core.children(of: BrowseItem.rootId, page: 0, pageSize: 10, for: .full)
        await clock.waitForSleeper(dueAt: .milliseconds(150))  // the car is waiting on the answer budget
        await clock.advance(by: .milliseconds(150))
        let tabs = await root
        #expect(tabs == .items(Self.before[BrowseItem.rootId] ?? [], total: 4, fromCache: true))
        // Known slow now: the other cached nodes come at once, without waiting on the budget again.
        for id in ["recent", "albums", "artists", "podcasts"] {
            let answer = await core.children(of: id, page: 0, pageSize: 10, for: .full)
            #expect(answer == .items(Self.before[id] ?? [], total: Self.before[id]?.count ?? 0, fromCache: true))
        }

        provider.release()
        let (changed, refreshed) = await Self.untilRefreshed(notifications)
        #expect(Set(changed.compactMap { $0 }) == ["recent", "podcasts"])
        #expect(changed.count == 2)
        #expect(refreshed?.message.contains("5 cached parents refreshed, 2 changed") == true)

        // Fresh from now on, and the cache holds the new content.
        let recent = await core.children(of: "recent", page: 0, pageSize: 10, for: .full)
        #expect(recent == .items(Self.after["recent"] ?? [], total: 3, fromCache: false))
        #expect(await core.cache?.children(of: "podcasts")?.map(\.id) == ["episode-2", "episode-1"])
    }

    @Test func absentProviderServesTheCacheAndRefreshesOnceUp() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        await Self.fillCache(folder)

        let provider = FakeProvider(tree: Self.after)
        provider.setDown(true)
        let clock = ManualClock()
        let core = makeCore(provider, cache: BrowseCache(directory: folder.path), clock: clock)
        let notifications = await core.subscribe()

        let tabs = await core.children(of: BrowseItem.rootId, page: 0, pageSize: 10, for: .full)
        #expect(tabs == .items(Self.before[BrowseItem.rootId] ?? [], total: 4, fromCache: true))
        #expect(await core.children(of: "recent", page: 0, pageSize: 10, for: .full).isFromCache)
        // Not cached and the provider down: an empty list, not a hang.
        #expect(await core.children(of: "album-1", page: 0, pageSize: 10, for: .full) == .unavailable)
        #expect(await core.reports.contains { $0.code == BrowseReportCode.providerUnavailable })

        // The provider comes up; the core notices at its next retry.
        provider.setDown(false)
        await clock.waitForSleeper(dueAt: .seconds(1))  // the core's next retry
        await clock.advance(by: .seconds(1))
        let (changed, _) = await Self.untilRefreshed(notifications)
        #expect(Set(changed.compactMap { $0 }) == ["recent", "podcasts"])
        #expect(await core.children(of: "recent", page: 0, pageSize: 10, for: .full).isFromCache == false)
    }

    /// The root answers (as MPD's tabs do without MPD) but a cached list fails at once: the
    /// refresh asks again once per retry interval, never in a loop without pause (which spun a
    /// core for as long as MPD was down).
    @Test(.timeLimit(.minutes(1)))
    func aRefreshThatFailsAgainWaitsTheRetryInterval() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        await Self.fillCache(folder)

        let provider = FakeProvider(tree: Self.after)
        provider.setDown(true, for: "recent")
        let clock = ManualClock()
        let core = makeCore(provider, cache: BrowseCache(directory: folder.path), clock: clock)
        let notifications = await core.subscribe()
        #expect(await core.children(of: "recent", page: 0, pageSize: 10, for: .full).isFromCache)
        let recentCalls = { provider.calls.count { $0 == "children:recent" } }
        for round in 1...4 {
            // The refresh found the root up, failed on Recent again, and now waits a second.
            await clock.waitForSleeper(dueAt: .seconds(Int64(round)))
            #expect(recentCalls() == round + 1, "one call when the car asked, then one per round")
            if round == 4 { provider.setDown(false, for: "recent") }
            await clock.advance(by: .seconds(1))
        }
        let (changed, refreshed) = await Self.untilRefreshed(notifications)
        #expect(refreshed != nil)
        #expect(changed.contains("recent"))
        #expect(recentCalls() == 6)
        #expect(await core.children(of: "recent", page: 0, pageSize: 10, for: .full).isFromCache == false)
    }

    @Test func anErrorScreenEvictsTheCachedList() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        await Self.fillCache(folder)
        let provider = FakeProvider(tree: Self.before)
        let signedOut = BrowseError(code: .authenticationExpired, message: "Sign in again")
        provider.setError(signedOut, for: "recent")
        let core = makeCore(provider, cache: BrowseCache(directory: folder.path))
        #expect(await core.children(of: "recent", page: 0, pageSize: 10, for: .full) == .error(signedOut))
        #expect(await core.cache?.children(of: "recent") == nil)
        // Later, with the provider down, the old list does not come back from the cache.
        provider.setDown(true)
        #expect(await core.children(of: "recent", page: 0, pageSize: 10, for: .full) == .unavailable)
        #expect(await core.children(of: "albums", page: 0, pageSize: 10, for: .full).isFromCache)
    }

    @Test func noCacheAndProviderDownIsAnEmptyList() async {
        let provider = FakeProvider(tree: Self.before)
        provider.setDown(true)
        let core = makeCore(provider)
        #expect(await core.children(of: BrowseItem.rootId, page: 0, pageSize: 10, for: .full) == .unavailable)
        #expect(await core.item(id: "recent", for: .full) == nil)
    }

    @Test func invalidateEvictsAndNotifiesEverySubscriber() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let cache = BrowseCache(directory: folder.path)
        let core = makeCore(FakeProvider(tree: Self.before), cache: cache)
        _ = await core.children(of: "recent", page: 0, pageSize: 10, for: .full)
        _ = await core.children(of: "albums", page: 0, pageSize: 10, for: .full)

        // With nobody connected it only evicts.
        await core.invalidate("albums")
        #expect(await cache.children(of: "albums") == nil)
        #expect(await cache.children(of: "recent") != nil)

        let cars = [await core.subscribe(), await core.subscribe()]
        await core.invalidate("recent")
        await core.invalidate(nil)
        #expect(await cache.nodeCount == 0)
        for car in cars {
            var iterator = car.makeAsyncIterator()
            #expect(await iterator.next() == .childrenChanged(parentId: "recent"))
            #expect(await iterator.next() == .childrenChanged(parentId: nil))
        }
    }

    @Test func aSubscriberThatEndsIsForgotten() async {
        let core = makeCore(FakeProvider(tree: Self.before))
        let staying = await core.subscribe()
        do {
            let leaving = await core.subscribe()
            let task = Task { for await _ in leaving {} }
            task.cancel()
            await task.value
        }
        for _ in 0..<1000 where await core.subscriberCount > 1 { await Task.yield() }
        #expect(await core.subscriberCount == 1)
        await core.invalidate("recent")
        var iterator = staying.makeAsyncIterator()
        #expect(await iterator.next() == .childrenChanged(parentId: "recent"))
    }

    @Test func aHandlerSubscriberIsCalledInOrderAndDroppedWhenItSaysSo() async {
        let core = makeCore(FakeProvider(tree: Self.before))
        let heard = Mutex<[BrowseNotification]>([])
        let staying = await core.subscribe { notification in
            heard.withLock { $0.append(notification) }
            return true
        }
        let leavingCalls = Mutex(0)
        _ = await core.subscribe { _ in
            leavingCalls.withLock { $0 += 1 }
            return false  // the car is gone
        }
        #expect(await core.subscriberCount == 2)
        await core.invalidate("recent")
        #expect(await core.subscriberCount == 1)
        await core.invalidate(nil)
        #expect(heard.withLock { $0 } == [.childrenChanged(parentId: "recent"), .childrenChanged(parentId: nil)])
        #expect(leavingCalls.withLock { $0 } == 1)
        await core.unsubscribe(staying)
        #expect(await core.subscriberCount == 0)
    }
}
