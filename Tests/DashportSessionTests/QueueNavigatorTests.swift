import Testing
@testable import DashportSession
import DashportRandom

@Suite struct QueueNavigatorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var count: Int
        var index: Int?
        var wrap: Bool
        var expected: Int?
        var testDescription: String {
            "count \(count), index \(index.map(String.init) ?? "nil"), wrap \(wrap) → \(expected.map(String.init) ?? "nil")"
        }
    }

    @Test(arguments: [
        Case(count: 0, index: nil, wrap: false, expected: nil),  // empty
        Case(count: 0, index: 0, wrap: true, expected: nil),
        Case(count: 1, index: 0, wrap: false, expected: nil),  // single, no repeat
        Case(count: 1, index: 0, wrap: true, expected: 0),  // single wraps onto itself
        Case(count: 3, index: 0, wrap: false, expected: 1),
        Case(count: 3, index: 1, wrap: true, expected: 2),
        Case(count: 3, index: 2, wrap: false, expected: nil),  // end of queue
        Case(count: 3, index: 2, wrap: true, expected: 0),  // wraparound
        Case(count: 3, index: 7, wrap: false, expected: 0),  // stale index
        Case(count: 3, index: -1, wrap: true, expected: 0),
        Case(count: 3, index: nil, wrap: false, expected: 0),
    ])
    func next(_ c: Case) {
        #expect(QueueNavigator(count: c.count).next(after: c.index, wrap: c.wrap) == c.expected)
    }

    @Test(arguments: [
        Case(count: 0, index: nil, wrap: true, expected: nil),
        Case(count: 1, index: 0, wrap: false, expected: nil),
        Case(count: 1, index: 0, wrap: true, expected: 0),
        Case(count: 3, index: 2, wrap: false, expected: 1),
        Case(count: 3, index: 0, wrap: false, expected: nil),  // start of queue
        Case(count: 3, index: 0, wrap: true, expected: 2),  // wraparound backwards
        Case(count: 3, index: 3, wrap: true, expected: 0),  // stale index
        Case(count: 3, index: nil, wrap: false, expected: 0),
    ])
    func previous(_ c: Case) {
        #expect(QueueNavigator(count: c.count).previous(before: c.index, wrap: c.wrap) == c.expected)
    }

    @Test(arguments: [(3, 0, 0), (3, 2, 2), (3, 3, nil), (3, -1, nil), (0, 0, nil), (1, 0, 0)] as [(Int, Int, Int?)])
    func skipToIndex(count: Int, index: Int, expected: Int?) {
        #expect(QueueNavigator(count: count).skip(to: index) == expected)
    }

    @Test(
        arguments: [
            (3, 1, RepeatMode.one, 1), (3, 0, .none, 1), (3, 2, .none, nil), (3, 2, .all, 0), (1, 0, .all, 0),
            (1, 0, .none, nil), (1, 0, .one, 0), (0, nil, .all, nil), (0, nil, .one, nil), (3, 9, .one, 0), (3, nil, .none, 0),
        ] as [(Int, Int?, RepeatMode, Int?)])
    func afterTrackEnd(count: Int, index: Int?, mode: RepeatMode, expected: Int?) {
        #expect(QueueNavigator(count: count).afterTrackEnd(index, repeatMode: mode) == expected)
    }

    @Test func followsAShuffleOrder() {
        let navigator = QueueNavigator(count: 3, order: [2, 0, 1])
        #expect(navigator.next(after: 2, wrap: false) == 0)
        #expect(navigator.next(after: 1, wrap: false) == nil)
        #expect(navigator.next(after: 1, wrap: true) == 2)
        #expect(navigator.previous(before: 2, wrap: true) == 1)
        #expect(navigator.next(after: nil, wrap: false) == 2)
    }

    @Test(arguments: [[0, 0, 1], [0, 1], [1, 2, 3], [0, 1, 2, 3]])
    func anOrderThatIsNotAPermutationFallsBackToQueueOrder(order: [Int]) {
        #expect(QueueNavigator(count: 3, order: order).order == [0, 1, 2])
    }

    @Test func shuffledStartsAtTheCurrentItemAndIsReproducible() {
        var a = SplitMix64(seed: 7)
        var b = SplitMix64(seed: 7)
        let first = QueueNavigator.shuffled(count: 20, first: 5, using: &a)
        let second = QueueNavigator.shuffled(count: 20, first: 5, using: &b)
        #expect(first == second)
        #expect(first.order.first == 5)
        #expect(first.order.sorted() == Array(0..<20))
        #expect(first.order != Array(0..<20))
        var c = SplitMix64(seed: 7)
        #expect(QueueNavigator.shuffled(count: 0, first: nil, using: &c).order.isEmpty)
        #expect(QueueNavigator.shuffled(count: 4, first: 9, using: &c).order.sorted() == [0, 1, 2, 3])
    }
}
