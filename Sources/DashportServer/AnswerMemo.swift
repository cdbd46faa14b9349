import DashportBrowse
import DashportServices
import Synchronization

/// Memoised media-channel GET_CHILDREN answers: the ruled page per (parent, page, page size, car
/// profile) with the artwork keys it names, kept until the browse core says the node changed
/// (``BrowseNotification/childrenChanged(parentId:)``, which ``BrowseCore/invalidate(_:)`` and the
/// refresh after an outage send).
///
/// A hit is answered on the car's own worker with no task, no actor hop and no artwork
/// registration: the keys were registered once, when the entry was made. Only answers the
/// provider gave fresh are kept (never a list from the disk cache, never an error screen), so
/// the car sees a refresh the same way it did before. The table is bounded (``maxEntries``;
/// full means start over) and thread-safe, read and written under one mutex.
final class AnswerMemo: Sendable {
    struct Key: Hashable, Sendable {
        var parentId: String
        var page: Int
        var pageSize: Int
        var car: CarProfile
    }

    struct Entry: Sendable {
        var answer: BrowseAnswer
        var artworkKeys: [String: String]
        /// What the rules told this car profile about the page (a dropped tab, a cut branch): sent
        /// with every answer, memoised or not.
        var carReports: [BrowseReport] = []
        /// The page as the media channel encodes it, made once off the reactor when the answer is
        /// kept, so a hit is answered without building and encoding every item again.
        var encodedPage: EncodedItemPage? = nil
    }

    /// Entries kept at most; storing one more clears the table.
    static let maxEntries = 1024

    private struct State {
        var entries: [Key: Entry] = [:]
        /// Bumped by every invalidation, so an answer computed before one is not stored after it.
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())

    /// The memoised answer for `key`, if any.
    func lookup(_ key: Key) -> Entry? {
        state.withLock { $0.entries[key] }
    }

    /// The current generation; pass it back to ``store(_:for:generation:)``.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Keeps `entry` unless an invalidation happened since `generation` was read, or the answer
    /// is not a fresh list.
    func store(_ entry: Entry, for key: Key, generation: UInt64) {
        guard Self.keeps(entry.answer) else { return }
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.entries.count >= AnswerMemo.maxEntries { state.entries.removeAll() }
            state.entries[key] = entry
        }
    }

    /// Whether an answer is one the memo keeps: a fresh list.
    static func keeps(_ answer: BrowseAnswer) -> Bool {
        if case .items(_, _, fromCache: false) = answer { return true }
        return false
    }

    /// Drops the answers for `parentId`'s children (every answer when nil).
    func invalidate(_ parentId: String?) {
        state.withLock { state in
            state.generation &+= 1
            if let parentId {
                state.entries = state.entries.filter { $0.key.parentId != parentId }
            } else {
                state.entries.removeAll()
            }
        }
    }

    /// The keys kept now (a test seam).
    var keys: [Key] { state.withLock { Array($0.entries.keys) } }

    /// How many answers are kept (a test seam).
    var count: Int { state.withLock { $0.entries.count } }
}

/// One ``AnswerMemo`` per reactor (issue 22, item 1): a car reads and fills the shard of the
/// reactor it runs on, and an invalidation drops the answers from every shard.
///
/// Why shards and not one table: a memo hit is the fast path of a browse request, and with one
/// table every reactor would take the same mutex for it. A shard's mutex is taken only by its
/// reactor's cars (one thread) and by an invalidation (rare), so it is never contended on that
/// path: an uncontended `Mutex` is one atomic exchange to lock and one to unlock, no system call.
/// A truly lock-free read (a snapshot published through an atomic reference) would need safe
/// reclamation of the old snapshot, which Swift's `Atomic` does not give without unsafe code.
/// The cost: each reactor computes a page once before it memoises it, and holds its own copy.
final class AnswerMemos: Sendable {
    let shards: [AnswerMemo]

    init(shards count: Int = 1) {
        shards = (0..<max(count, 1)).map { _ in AnswerMemo() }
    }

    /// The shard of reactor `index` (a car off any reactor, on USB or in memory, uses shard 0).
    func shard(_ index: Int) -> AnswerMemo {
        shards[index % shards.count]
    }

    /// Drops the answers for `parentId`'s children (every answer when nil) from every shard.
    func invalidate(_ parentId: String?) {
        for shard in shards { shard.invalidate(parentId) }
    }

    /// The keys kept now in any shard (a test seam).
    var keys: [AnswerMemo.Key] { shards.flatMap(\.keys) }

    /// How many answers all shards keep (a test seam).
    var count: Int { shards.reduce(0) { $0 + $1.count } }
}
