import DashportTestSupport
import Foundation
import Testing
import DashportBrowse
import DashportMessages
@testable import DashportServer

@Suite("Memoised answers", .serialized)
struct AnswerMemoTests {
    static let car = CarProfile()
    static func key(_ parent: String, page: Int = 0) -> AnswerMemo.Key {
        AnswerMemo.Key(parentId: parent, page: page, pageSize: 50, car: car)
    }
    static func entry(_ ids: [String], fromCache: Bool = false) -> AnswerMemo.Entry {
        AnswerMemo.Entry(
            answer: .items(ids.map { BrowseItem(id: $0, title: $0, playable: true) }, total: ids.count, fromCache: fromCache),
            artworkKeys: [:])
    }

    @Test func anInvalidatedParentIsDroppedAndOnlyIt() {
        let memo = AnswerMemo()
        memo.store(Self.entry(["a"]), for: Self.key("tab-A"), generation: memo.generation)
        memo.store(Self.entry(["b"]), for: Self.key("tab-B"), generation: memo.generation)
        #expect(memo.lookup(Self.key("tab-A"))?.answer.items.map(\.id) == ["a"])
        memo.invalidate("tab-A")
        #expect(memo.lookup(Self.key("tab-A")) == nil)
        #expect(memo.lookup(Self.key("tab-B")) != nil)
        memo.invalidate(nil)
        #expect(memo.count == 0)
    }

    @Test func anAnswerComputedBeforeAChangeIsNotKeptAfterIt() {
        let memo = AnswerMemo()
        let before = memo.generation
        memo.invalidate("tab-A")  // the node changed while the answer was being computed
        memo.store(Self.entry(["old"]), for: Self.key("tab-A"), generation: before)
        #expect(memo.lookup(Self.key("tab-A")) == nil)
        memo.store(Self.entry(["cached"], fromCache: true), for: Self.key("tab-A"), generation: memo.generation)
        #expect(memo.lookup(Self.key("tab-A")) == nil, "lists from the disk cache are never kept")
    }

    /// One shard per reactor: each keeps its own answers, an invalidation empties the parent in
    /// every shard, and an answer computed in one shard before a change is not kept after it.
    @Test func everyShardIsInvalidatedAndKeepsItsOwnAnswers() {
        let memos = AnswerMemos(shards: 2)
        #expect(memos.shard(2) === memos.shard(0), "a car off the reactors (index past them) uses a shard that exists")
        let (first, second) = (memos.shard(0), memos.shard(1))
        first.store(Self.entry(["a"]), for: Self.key("tab-A"), generation: first.generation)
        #expect(second.lookup(Self.key("tab-A")) == nil, "a shard is filled by its own reactor's cars")
        let before = second.generation
        second.store(Self.entry(["a"]), for: Self.key("tab-A"), generation: before)
        second.store(Self.entry(["b"]), for: Self.key("tab-B"), generation: before)
        #expect(memos.count == 3)
        memos.invalidate("tab-A")
        #expect(first.lookup(Self.key("tab-A")) == nil && second.lookup(Self.key("tab-A")) == nil)
        #expect(second.lookup(Self.key("tab-B")) != nil)
        second.store(Self.entry(["old"]), for: Self.key("tab-A"), generation: before)
        #expect(second.lookup(Self.key("tab-A")) == nil)
        memos.invalidate(nil)
        #expect(memos.count == 0)
    }

    /// A provider that timed out with nothing cached answers `.unavailable`: never kept, so the
    /// next car asks the provider again instead of getting the empty page.
    @Test func anUnavailableAnswerIsNeverKept() {
        let memo = AnswerMemo()
        memo.store(AnswerMemo.Entry(answer: .unavailable, artworkKeys: [:]), for: Self.key("tab-A"), generation: memo.generation)
        #expect(memo.lookup(Self.key("tab-A")) == nil)
        memo.store(AnswerMemo.Entry(answer: .empty, artworkKeys: [:]), for: Self.key("tab-A"), generation: memo.generation)
        #expect(memo.lookup(Self.key("tab-A")) != nil, "a fresh empty list is an answer and is kept")
    }

    /// Through the whole stack: the second request is served from the memo (the provider's new
    /// content is not seen), an invalidation drops it and the next request sees the change.
    @Test func overTCPTheMemoServesUntilTheNodeIsInvalidated() async throws {
        let provider = SwitchableProvider(SwitchableProvider.library(tabATracks: ["1", "2"]))
        try await TestServer.with(provider: provider) { server in
            let car = try await TestCar.connect(to: server.server.address, configuration: MediaChannelOverTCPTests.dashportCar())
            try await car.waitUntil("server hello") { $0.messages(on: 16).contains { $0.id == 0x8001 } }
            let walker = MediaChannelOverTCPTests()
            #expect(try await walker.children(car, of: "tab-A", requestId: 1).map(\.id) == ["track-1", "track-2"])
            let memo = server.server.core.answers
            #expect(memo.count >= 1)

            provider.set(SwitchableProvider.library(tabATracks: ["1", "2", "3"]))
            #expect(try await walker.children(car, of: "tab-A", requestId: 2).map(\.id) == ["track-1", "track-2"])

            await server.server.core.browse.invalidate("tab-A")
            try await eventually("the memo to drop tab-A") { !memo.keys.contains { $0.parentId == "tab-A" } }
            #expect(try await walker.children(car, of: "tab-A", requestId: 3).map(\.id) == ["track-1", "track-2", "track-3"])
            await car.abort()
        }
    }
}
