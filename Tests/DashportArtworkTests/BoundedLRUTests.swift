import Testing
@testable import DashportArtwork

@Suite struct BoundedLRUTests {
    @Test func forgetsTheLeastRecentlySetFirst() {
        var lru = BoundedLRU<String, Int>(capacity: 2)
        lru.set(1, for: "a")
        lru.set(2, for: "b")
        lru.set(10, for: "a")  // a is the most recent now
        lru.set(3, for: "c")
        #expect(lru["a"] == 10 && lru["b"] == nil && lru["c"] == 3)
        #expect(lru.count == 2)
    }

    @Test func agreesWithASimpleModelOverManySets() {
        let capacity = 8
        var lru = BoundedLRU<Int, Int>(capacity: capacity)
        var model: [(key: Int, value: Int)] = []  // least recent first
        var seed: UInt64 = 0x9e37_79b9_7f4a_7c15
        var disagreements: [Int] = []
        for step in 0..<5_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let key = Int(seed >> 33) % (step % 2 == 0 ? 12 : 40)  // alternately a hot set and a wide one
            lru.set(step, for: key)
            model.removeAll { $0.key == key }
            model.append((key, step))
            if model.count > capacity { model.removeFirst() }
            let agrees = lru.count == model.count && (0..<40).allSatisfy { key in
                lru[key] == model.first(where: { $0.key == key })?.value
            }
            if !agrees { disagreements.append(step) }
        }
        #expect(disagreements.isEmpty)
        #expect(lru.count == capacity)
    }

    @Test func aCapacityBelowOneHoldsOne() {
        var lru = BoundedLRU<Int, Int>(capacity: 0)
        lru.set(1, for: 1)
        lru.set(2, for: 2)
        #expect(lru.count == 1 && lru[2] == 2)
    }
}
