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

    @Test func aTouchedEntryIsKeptLongerAndKeepsItsValue() {
        var lru = BoundedLRU<String, Int>(capacity: 2)
        lru.set(1, for: "a")
        lru.set(2, for: "b")
        let touchedA = lru.touch("a")
        let touchedZ = lru.touch("z")
        #expect(touchedA && !touchedZ)
        lru.set(3, for: "c")
        #expect(lru["a"] == 1 && lru["b"] == nil && lru["c"] == 3)
        let a = lru.touchedValue("a")
        let b = lru.touchedValue("b")
        #expect(a == 1 && b == nil)
        lru.set(4, for: "d")
        #expect(lru["a"] == 1 && lru["c"] == nil && lru.count == 2)
    }

    @Test func agreesWithASimpleModelOverManySetsAndTouches() {
        let capacity = 8
        var lru = BoundedLRU<Int, Int>(capacity: capacity)
        var model: [(key: Int, value: Int)] = []  // least recent first
        var seed: UInt64 = 0x9e37_79b9_7f4a_7c15
        var firstDisagreement: Int?  // the step where the LRU and the model first differ
        for step in 0..<5_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let key = Int(seed >> 33) % (step % 2 == 0 ? 12 : 40)  // alternately a hot set and a wide one
            if step % 3 == 0 {  // a touch: recent again, value unchanged, nothing added
                let held = model.first { $0.key == key }
                let touched = step % 2 == 0 ? lru.touchedValue(key) : (lru.touch(key) ? held?.value : nil)
                if touched != held?.value { firstDisagreement = firstDisagreement ?? step }
                if let held {
                    model.removeAll { $0.key == key }
                    model.append(held)
                }
            } else {
                lru.set(step, for: key)
                model.removeAll { $0.key == key }
                model.append((key, step))
                if model.count > capacity { model.removeFirst() }
            }
            let agrees =
                lru.count == model.count
                && (0..<40).allSatisfy { key in
                    lru[key] == model.first(where: { $0.key == key })?.value
                }
            if !agrees { firstDisagreement = firstDisagreement ?? step }
        }
        #expect(firstDisagreement == nil)
        #expect(lru.count == capacity)
    }

    @Test func aCapacityBelowOneHoldsOne() {
        var lru = BoundedLRU<Int, Int>(capacity: 0)
        lru.set(1, for: 1)
        lru.set(2, for: 2)
        #expect(lru.count == 1 && lru[2] == 2)
    }
}
