/// Queue arithmetic: next, previous, skip to index and what follows a finished track, in play order
/// (the queue's own order, or a shuffle order over it).
///
/// Rules: an empty queue has no next or previous. A stale index (nil, or outside the queue) counts
/// as "before the start": next and previous both give the first entry in play order. Wrapping
/// (repeat all) goes from the last entry to the first and back; a single-entry queue wraps onto
/// itself. Repeat one replays the entry only at the end of a track: skipping still moves on.
public struct QueueNavigator: Sendable, Hashable {
    /// Queue indices in play order: a permutation of `0..<count`.
    public let order: [Int]

    /// A navigator over `count` entries, in `order` when it is a permutation of `0..<count`, else in
    /// queue order.
    public init(count: Int, order: [Int]? = nil) {
        let identity = Array(0..<max(0, count))
        if let order, order.count == identity.count, order.sorted() == identity {
            self.order = order
        } else {
            self.order = identity
        }
    }

    /// A shuffled navigator whose play order starts at `first` (when it is a valid index), so turning
    /// shuffle on does not change the playing item.
    public static func shuffled<G: RandomNumberGenerator>(count: Int, first: Int?, using generator: inout G) -> QueueNavigator {
        var rest = Array(0..<max(0, count))
        var head: [Int] = []
        if let first, rest.indices.contains(first) {
            rest.remove(at: first)
            head = [first]
        }
        rest.shuffle(using: &generator)
        return QueueNavigator(count: count, order: head + rest)
    }

    public var count: Int { order.count }

    /// The entry after `index` in play order; past the end it wraps when `wrap`, else nil.
    public func next(after index: Int?, wrap: Bool) -> Int? {
        guard let position = position(of: index) else { return order.first }
        if position + 1 < order.count { return order[position + 1] }
        return wrap ? order.first : nil
    }

    /// The entry before `index` in play order; before the start it wraps when `wrap`, else nil.
    public func previous(before index: Int?, wrap: Bool) -> Int? {
        guard let position = position(of: index) else { return order.first }
        if position > 0 { return order[position - 1] }
        return wrap ? order.last : nil
    }

    /// `index` if it points into the queue, else nil (a stale index from a car's old queue view).
    public func skip(to index: Int) -> Int? {
        (0..<order.count).contains(index) ? index : nil
    }

    /// What plays after the entry at `index` finished on its own: the same entry (repeat one), the
    /// next one wrapping (repeat all), the next one or nil at the end (no repeat).
    public func afterTrackEnd(_ index: Int?, repeatMode: RepeatMode) -> Int? {
        switch repeatMode {
        case .one: position(of: index) != nil ? index : order.first
        case .all: next(after: index, wrap: true)
        case .none: next(after: index, wrap: false)
        }
    }

    private func position(of index: Int?) -> Int? {
        guard let index, (0..<order.count).contains(index) else { return nil }
        return order.firstIndex(of: index)
    }
}
