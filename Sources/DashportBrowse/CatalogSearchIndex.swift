// Sources/DashportBrowse/CatalogSearchIndex.swift - the catalog's search, answered from an index built at load.

/// What a catalog search looks at, and an index over it built once per load or reload (inside
/// ``CatalogLoader/parse(_:path:)``, so on whatever thread loads: the start-up's detached task and
/// the ``CatalogProvider/load()`` of a reload, never the reactor), so a search over the largest
/// catalog (``CatalogLoader/maxItems``) reads a few posting lists instead of every item.
///
/// Search means what it always did (``linearMatches(_:)`` is that search, kept as the reference):
/// the items whose folded title, artist or album contains the folded query (a substring, so a
/// word's prefix, several words, or the middle of a word), compared `Character` by `Character`,
/// in catalog order. The index only narrows down which items to look at, and every item it names
/// is checked with that same comparison, so the results and their order are the reference's as
/// long as the index never leaves out an item that matches. It does not:
///
/// - Each distinct `Character` of the folded fields gets a code (ASCII its own, others from a
///   dictionary keyed by `Character`, which compares and hashes by canonical equivalence, as
///   `String.contains` compares). Past 2²¹ − 1 distinct ones the rest share one code: a shared
///   code can only name too many items, never too few.
/// - Every position of every field is indexed as the trigram of codes starting there, padded past
///   the field's end with 0. A query of three or more `Character`s matches only where each of its
///   trigrams occurs; one of one or two `Character`s only where some trigram starts with them, and
///   those trigrams are one range of the sorted keys (first code in the high bits).
/// - Each trigram's posting list is the items it occurs in, ascending, stored as varint deltas.
struct CatalogSearchIndex: Sendable {
    /// One searchable item (any item but the root's entries) and its folded title, artist and album.
    struct Entry: Sendable {
        var item: BrowseItem
        var fields: [String]
    }

    /// Every searchable item, in catalog order; posting lists name them by position here.
    let entries: [Entry]
    private let alphabet: [Character: UInt32]
    /// Every trigram that occurs, ascending.
    private let keys: [UInt64]
    /// Where key `k`'s posting list starts in `postings` (`starts[k + 1]` is where it ends).
    private let starts: [UInt32]
    /// How many items key `k`'s list names.
    private let counts: [UInt32]
    private let postings: [UInt8]

    private static let codeBits: UInt64 = 21
    /// The code every `Character` past the dictionary's capacity shares.
    private static let sharedCode: UInt32 = (1 << 21) - 1
    /// The first code the dictionary hands out (0 is the padding, 1…128 are ASCII).
    private static let firstDictionaryCode: UInt32 = 129

    init(_ entries: [Entry]) {
        var alphabet: [Character: UInt32] = [:]
        var lists: [UInt64: PostingList] = [:]
        var codes: [UInt32] = []
        for (position, entry) in entries.enumerated() {
            for field in entry.fields {
                codes.removeAll(keepingCapacity: true)
                for character in field { codes.append(Self.code(character, adding: &alphabet)) }
                for start in codes.indices {
                    let second = start + 1 < codes.count ? codes[start + 1] : 0
                    let third = start + 2 < codes.count ? codes[start + 2] : 0
                    lists[Self.key(codes[start], second, third), default: PostingList()].add(position)
                }
            }
        }
        let keys = lists.keys.sorted()
        var starts: [UInt32] = [0]
        var counts: [UInt32] = []
        var postings: [UInt8] = []
        starts.reserveCapacity(keys.count + 1)
        counts.reserveCapacity(keys.count)
        postings.reserveCapacity(lists.values.reduce(0) { $0 + $1.bytes.count })
        for key in keys {
            // The key came from `lists`' own keys.
            guard let list = lists[key] else { continue }
            postings += list.bytes
            starts.append(UInt32(postings.count))
            counts.append(list.count)
        }
        self.entries = entries
        self.alphabet = alphabet
        self.keys = keys
        self.starts = starts
        self.counts = counts
        self.postings = postings
    }

    /// The first `limit` items matching `needle` (already folded and trimmed, not empty), in
    /// catalog order: the first `limit` of ``linearMatches(_:)``.
    func matches(_ needle: String, limit: Int) -> [BrowseItem] {
        guard limit > 0, !needle.isEmpty else { return [] }
        var codes: [UInt32] = []
        for character in needle {
            guard let code = code(of: character) else { return [] }  // in no field at all
            codes.append(code)
        }
        var candidates = Bitmap(count: entries.count)
        if codes.count < 3 {
            let low = Self.key(codes[0], codes.count > 1 ? codes[1] : 0, 0)
            let high = codes.count > 1 ? low + 1 << Self.codeBits : low + 1 << (2 * Self.codeBits)
            for k in lowerBound(low)..<lowerBound(high) { forEachPosting(of: k) { candidates.insert($0) } }
        } else {
            var lists: [Int] = []
            for start in 0...(codes.count - 3) {
                let key = Self.key(codes[start], codes[start + 1], codes[start + 2])
                let k = lowerBound(key)
                guard k < keys.count, keys[k] == key else { return [] }  // a trigram no field has
                lists.append(k)
            }
            lists.sort { counts[$0] < counts[$1] }
            forEachPosting(of: lists[0]) { candidates.insert($0) }
            var other = Bitmap(count: entries.count)
            for k in lists.dropFirst() {
                other.removeAll()
                forEachPosting(of: k) { other.insert($0) }
                candidates.formIntersection(other)
            }
        }
        var found: [BrowseItem] = []
        candidates.forEach { position in
            let entry = entries[position]
            guard entry.fields.contains(where: { $0.contains(needle) }) else { return true }
            found.append(entry.item)
            return found.count < limit
        }
        return found
    }

    /// The search as it was before the index, over every item: the reference ``matches(_:limit:)``
    /// must agree with.
    func linearMatches(_ needle: String) -> [BrowseItem] {
        guard !needle.isEmpty else { return [] }
        return entries.lazy.filter { entry in entry.fields.contains { $0.contains(needle) } }.map(\.item)
    }

    private static func key(_ first: UInt32, _ second: UInt32, _ third: UInt32) -> UInt64 {
        UInt64(first) << (2 * codeBits) | UInt64(second) << codeBits | UInt64(third)
    }

    private static func code(_ character: Character, adding alphabet: inout [Character: UInt32]) -> UInt32 {
        if let ascii = character.asciiValue { return UInt32(ascii) + 1 }
        if let code = alphabet[character] { return code }
        let next = UInt32(alphabet.count) + firstDictionaryCode
        guard next < sharedCode else { return sharedCode }
        alphabet[character] = next
        return next
    }

    /// The code `character` has in the fields, or nil when no field has it.
    private func code(of character: Character) -> UInt32? {
        if let ascii = character.asciiValue { return UInt32(ascii) + 1 }
        if let code = alphabet[character] { return code }
        return UInt32(alphabet.count) + Self.firstDictionaryCode >= Self.sharedCode ? Self.sharedCode : nil
    }

    /// The first position in `keys` whose key is not below `key`.
    private func lowerBound(_ key: UInt64) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func forEachPosting(of k: Int, _ body: (Int) -> Void) {
        var offset = Int(starts[k])
        let end = Int(starts[k + 1])
        var position = -1
        while offset < end {
            var delta = 0
            var shift = 0
            while true {
                let byte = postings[offset]
                offset += 1
                delta |= Int(byte & 0x7F) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            position += delta
            body(position)
        }
    }
}

/// One trigram's items while the index is built: ascending, each once, as varint deltas.
private struct PostingList {
    var bytes: [UInt8] = []
    var count: UInt32 = 0
    private var last = -1

    mutating func add(_ position: Int) {
        guard position != last else { return }
        var delta = position - last
        last = position
        count += 1
        while delta >= 0x80 {
            bytes.append(UInt8(delta & 0x7F) | 0x80)
            delta >>= 7
        }
        bytes.append(UInt8(delta))
    }
}

/// A set of entry positions, one bit each.
private struct Bitmap {
    private var words: [UInt64]

    init(count: Int) { words = Array(repeating: 0, count: (count + 63) / 64) }

    mutating func insert(_ position: Int) { words[position >> 6] |= 1 << UInt64(position & 63) }
    mutating func removeAll() { for index in words.indices { words[index] = 0 } }
    mutating func formIntersection(_ other: Bitmap) {
        for index in words.indices { words[index] &= other.words[index] }
    }

    /// Calls `body` with each position in ascending order while it returns true.
    func forEach(_ body: (Int) -> Bool) {
        for (index, word) in words.enumerated() {
            var bits = word
            while bits != 0 {
                guard body(index << 6 + bits.trailingZeroBitCount) else { return }
                bits &= bits - 1
            }
        }
    }
}
