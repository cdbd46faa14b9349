/// A dictionary of at most `capacity` entries that forgets the least recently set first.
///
/// Every ``set(_:for:)`` appends (key, generation) to a queue; eviction walks the queue from the
/// front and skips items whose key was set again since (their generation moved on). The queue
/// is compacted once it is more than twice the live entries, so each operation is amortised O(1)
/// and the queue never holds more than about twice what the dictionary holds.
struct BoundedLRU<Key: Hashable, Value> {
    let capacity: Int
    private var entries: [Key: (value: Value, generation: UInt64)] = [:]
    private var order: [(key: Key, generation: UInt64)] = []
    private var orderStart = 0
    private var generation: UInt64 = 0

    /// - Parameter capacity: entries kept; at least 1.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var count: Int { entries.count }

    /// The value of `key`, without making it more recent.
    subscript(key: Key) -> Value? { entries[key]?.value }

    /// Stores `value` under `key` as the most recent entry, forgetting the least recent ones
    /// beyond the capacity.
    mutating func set(_ value: Value, for key: Key) {
        generation &+= 1
        entries[key] = (value, generation)
        order.append((key, generation))
        while entries.count > capacity, orderStart < order.count {
            let oldest = order[orderStart]
            orderStart += 1
            if entries[oldest.key]?.generation == oldest.generation { entries[oldest.key] = nil }
        }
        if order.count > 2 * max(entries.count, 16) {
            order = order[orderStart...].filter { entries[$0.key]?.generation == $0.generation }
            orderStart = 0
        }
    }
}
