/// A dictionary of at most `capacity` entries that forgets the least recently used first
/// (set or touched).
///
/// Every ``set(_:for:)`` and ``touch(_:)`` appends (key, generation) to a queue; eviction walks
/// the queue from the front and skips items whose key was used again since (their generation
/// moved on). The queue is compacted once it is more than twice the live entries, so each
/// operation is amortised O(1) and the queue never holds much more than the dictionary holds.
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
        compactIfNeeded()
    }

    /// Makes `key` the most recent entry, leaving its value as it is; false if it is not held.
    /// One hash lookup, and the value is not copied.
    @discardableResult
    mutating func touch(_ key: Key) -> Bool {
        guard let index = entries.index(forKey: key) else { return false }
        refresh(key, at: index)
        return true
    }

    /// The value of `key`, which becomes the most recent entry (nil if it is not held).
    mutating func touchedValue(_ key: Key) -> Value? {
        guard let index = entries.index(forKey: key) else { return nil }
        refresh(key, at: index)
        return entries.values[index].value
    }

    private mutating func refresh(_ key: Key, at index: Dictionary<Key, (value: Value, generation: UInt64)>.Index) {
        generation &+= 1
        entries.values[index].generation = generation
        order.append((key, generation))
        compactIfNeeded()
    }

    private mutating func compactIfNeeded() {
        guard order.count > 2 * max(entries.count, 16) else { return }
        order = order[orderStart...].filter { entries[$0.key]?.generation == $0.generation }
        orderStart = 0
    }
}
