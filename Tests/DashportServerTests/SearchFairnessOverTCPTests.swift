import DashportBrowse
import DashportClock
import DashportMessages
import DashportTestSupport
import Synchronization
import Testing

@testable import DashportServer

/// A library whose searches for `stuck…` wait until ``open()``; every other search answers at
/// once. It records the order searches reached it, so a test can see which of a car's requests
/// the core let through.
final class GatedSearchProvider: BrowseProvider {
    private struct State {
        var started: [String] = []
        var open = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let library = SwitchableProvider(SwitchableProvider.library(tabATracks: ["1", "2"]))
    private let state = Mutex(State())

    var supportsSearch: Bool { true }

    /// The queries that reached the library, in order.
    var started: [String] { state.withLock { $0.started } }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    func children(of parentId: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        try await library.children(of: parentId, page: page, pageSize: pageSize)
    }

    func item(id: String) async throws -> BrowseItem? { try await library.item(id: id) }

    func search(query: String, page: Int, pageSize: Int) async throws -> [BrowseItem] {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let wait = state.withLock { state in
                state.started.append(query)
                guard query.hasPrefix("stuck"), !state.open else { return false }
                state.waiters.append(waiter)
                return true
            }
            if !wait { waiter.resume() }
        }
        return [BrowseItem(id: "found-\(query)", title: "Found \(query)", playable: true, durationMs: 60_000)]
    }
}

/// Issue 23 item 4 over real sockets: one car keeping 32 searches in flight (the media channel's
/// cap) gets at most ``CoreBridge/maxConcurrentRequests`` (4) of them into the library at once, the
/// rest wait behind them, and another car's search goes to the library and is answered
/// meanwhile. With a search pool per server instead of a share per car, the flood's 32 all reach
/// the library; with one queue for all cars, the other car's search waits behind the flood's.
/// No timing is involved: the flood's searches are held until the test lets them go, and the
/// server's clock stands still (no provider timeout can free a place early).
@Suite("Search fairness over TCP", .serialized)
struct SearchFairnessOverTCPTests {
    static let media = MediaChannelOverTCPTests.mediaChannel

    @Test func aCarsThirtyTwoSearchesLeaveRoomForAnotherCarsSearch() async throws {
        let provider = GatedSearchProvider()
        try await TestServer.with(provider: provider, clock: ManualClock()) { server in
            let flooder = try await TestCar.connect(to: server.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
            let good = try await TestCar.connect(to: server.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
            do {
                try await Self.searches(from: flooder, beside: good, provider: provider)
            } catch {
                // The held searches are let go and the cars leave before the server stops: its
                // bye-bye grace runs on the stopped clock and would wait for them.
                provider.open()
                for car in [flooder, good] { await car.abort() }
                throw error
            }
            for car in [flooder, good] { await car.abort() }
        }
    }

    static func searches(from flooder: TestCar, beside good: TestCar, provider: GatedSearchProvider) async throws {
        for car in [flooder, good] {
            try await car.waitUntil("server hello") { $0.messages(on: Self.media).contains { $0.id == 0x8001 } }
        }
        for n in 0..<32 {
            let search = DashportMedia.Search(requestId: UInt32(n + 1), query: "stuck \(n)", page: 0, pageSize: 20)
            await flooder.sendUnchecked(channel: media, messageId: 0x8005, body: search.serializedBytes())
        }
        let share = 4  // the share the README's attacks table documents (CoreBridge.maxConcurrentRequests)
        try await eventually("the flood's first \(share) searches reach the library") { provider.started.count >= share }

        let search = DashportMedia.Search(requestId: 7, query: "good", page: 0, pageSize: 20)
        await good.sendUnchecked(channel: media, messageId: 0x8005, body: search.serializedBytes())
        let answer = try await result(good, requestId: 7)
        guard case .items(let page) = answer.outcome else {
            Issue.record("expected the good car's results, got \(String(describing: answer.outcome))")
            throw TestTimeout(what: "the good car's results")
        }
        #expect(page.items.map(\.title) == ["Found good"])
        // The good car was answered while the flood still held its share: none of the other 28
        // reached the library, none was answered.
        let started = provider.started
        #expect(started.filter { $0.hasPrefix("stuck") }.count == share, "the flood's searches in the library: \(started)")
        #expect(await answers(flooder).isEmpty)

        provider.open()
        try await flooder.waitUntil("every search of the flood answered") { answered($0).count == 32 }
        // Each reached the library once (the order they start in is `CoreBridgeFairnessTests`'s:
        // two started at once run on the pool in either order).
        #expect(provider.started.filter { $0.hasPrefix("stuck") }.sorted() == (0..<32).map { "stuck \($0)" }.sorted())
    }

    /// The request ids of the browse results a car got.
    static func answered(_ car: isolated TestCar) -> [UInt32] {
        answers(car).map(\.requestId)
    }

    static func answers(_ car: isolated TestCar) -> [DashportMedia.BrowseResult] {
        car.messages(on: media).filter { $0.id == 0x8006 }.compactMap { try? DashportMedia.BrowseResult(serializedBytes: $0.body) }
    }

    static func result(_ car: TestCar, requestId: UInt32) async throws -> DashportMedia.BrowseResult {
        try await car.waitUntil("answer \(requestId)") { answered($0).contains(requestId) }
        return try #require(await answers(car).first { $0.requestId == requestId })
    }
}
