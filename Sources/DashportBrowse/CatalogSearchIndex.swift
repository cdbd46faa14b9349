// Sources/DashportBrowse/CatalogSearchIndex.swift - the catalog's search, answered from an index built at load.

import Glibc

/// What a catalog search looks at, and an index over it built once per load or reload (inside
/// ``CatalogLoader/parse(_:path:)``, so on whatever thread loads: the start-up's detached task and
/// the ``CatalogProvider/load()`` of a reload, never the reactor), so a search over the largest
/// catalog (``CatalogLoader/maxItems``) reads a few posting lists instead of every item.
///
/// Search means what it always did (``linearMatches(_:)`` is that search, kept as the reference):
/// the items whose folded title, artist or album contains the folded query (a substring, so a
/// word's prefix, several words, or the middle of a word), compared `Character` by `Character`,
/// in catalog order. The index only narrows down which items to look at, and every item it names
/// is checked with that comparison (or one that agrees with it, below), so the results and their
/// order are the reference's as long as the index never leaves out an item that matches. It does not:
///
/// - Each distinct `Character` of the folded fields gets a code (a one-byte ASCII one its byte,
///   others from a dictionary keyed by `Character`, which compares and hashes by canonical
///   equivalence, as `String.contains` compares). Past 2²¹ − 1 distinct ones the rest share one
///   code: a shared code can only name too many items, never too few.
/// - Every position of every field is indexed as the trigram of codes starting there, padded past
///   the field's end with 0. A query of three or more `Character`s matches only where each of its
///   trigrams occurs; one of one or two `Character`s only where some trigram starts with them, and
///   those trigrams are one range of the sorted keys (first code in the high bits).
/// - Each trigram's posting list is the items it occurs in, ascending, stored as varint deltas.
///
/// A query reads its lists window by window (4096 positions, then each window twice the last) and
/// stops once the page asked for is full, so a common word costs its first few thousand items, not
/// all of them. For one or two `Character`s with codes of their own the lists are the answer; a
/// longer query intersects its four rarest lists and checks the candidates (bytes compared when
/// both are plain ASCII, where a `Character` is a byte; `String.contains` otherwise).
@_spi(SearchReference) public struct CatalogSearchIndex: Sendable {
    /// Every searchable item's folded fields, in catalog order (posting lists name the items by
    /// their position here): the fields' UTF-8 in one buffer (a field many items share, such as
    /// an artist, once), each field as its offset << 32 | its length, each item's fields from
    /// `entryStarts[position]` to `entryStarts[position + 1]`.
    private let text: [UInt8]
    private let fields: [UInt64]
    private let entryStarts: [UInt32]
    private let alphabet: [Character: UInt32]
    /// Every trigram that occurs, ascending.
    private let keys: [UInt64]
    /// Where key `k`'s posting list starts in `postings` (`starts[k + 1]` is where it ends).
    private let starts: [UInt32]
    /// How many items key `k`'s list names.
    private let counts: [UInt32]
    private let postings: [UInt8]
    /// Whether each entry's fields are all ASCII without a carriage return.
    private let plainASCII: [Bool]

    private static let codeBits: UInt64 = 21
    /// How many of a long query's trigram lists are intersected (its rarest).
    private static let listsIntersected = 4
    /// The code every `Character` past the dictionary's capacity shares.
    private static let sharedCode: UInt32 = (1 << 21) - 1
    /// The first code the dictionary hands out (0 is the padding, 1…128 are ASCII).
    private static let firstDictionaryCode: UInt32 = 129

    /// How many items the index searches.
    public var count: Int { entryStarts.count - 1 }

    /// The index over `entries`, each an item's folded fields (title, artist, album), in catalog
    /// order: for tests and the fuzz driver (the loader adds its items one by one to a ``Builder``).
    public init(_ entries: [[String]]) {
        var builder = Builder()
        for entry in entries {
            let written = entry.map { ($0, builder.field($0)) }
            builder.add(written)
        }
        self = builder.build()
    }

    /// Builds the index one item at a time, so the folded fields are never held as strings of
    /// their own: a field is written once (``field(_:)``) and named by every item that has it.
    public struct Builder {
        /// A field written into the index, for ``add(_:)``.
        public struct Field: Sendable, Hashable {
            fileprivate var packed: UInt64
        }

        private var text: [UInt8] = []
        private var fields: [UInt64] = []
        private var entryStarts: [UInt32] = [0]
        private var plainASCII: [Bool] = []
        private var alphabet: [Character: UInt32] = [:]
        /// Each trigram's list, by the number `listNumbers` gives the trigram.
        private var lists: [PostingList] = []
        private var listNumbers: [UInt64: UInt32] = [:]
        /// Each shared field's trigrams (their list numbers) and plainness, worked out once.
        private var sharedLists: [UInt64: SharedField] = [:]
        private var codes: [UInt32] = []
        private var numbers: [UInt32] = []

        public init() {}

        /// Writes one folded field; the same value may be named by any number of items. A field
        /// `shared` by many (an artist, an album) has its trigrams worked out once.
        public mutating func field(_ folded: String, shared: Bool = false) -> Field {
            let offset = text.count
            text.append(contentsOf: folded.utf8)
            let packed = UInt64(offset) << 32 | UInt64(text.count - offset)
            if shared { sharedLists[packed] = SharedField() }
            return Field(packed: packed)
        }

        /// The next item, with its folded fields (each the string and what ``field(_:shared:)`` gave for it).
        public mutating func add(_ entryFields: [(String, Field)]) {
            let position = plainASCII.count
            var plain = true
            for (field, written) in entryFields {
                fields.append(written.packed)
                if let known = sharedLists[written.packed], known.workedOut {
                    plain = plain && known.plain
                    for number in known.lists { lists[Int(number)].add(position) }
                    continue
                }
                let ascii = CatalogSearchIndex.isPlainASCII(field)
                plain = plain && ascii
                codes.removeAll(keepingCapacity: true)
                if ascii {
                    // Without a carriage return every ASCII byte is a `Character` of its own.
                    for byte in field.utf8 { codes.append(UInt32(byte) + 1) }
                } else {
                    for character in field { codes.append(CatalogSearchIndex.code(character, adding: &alphabet)) }
                }
                numbers.removeAll(keepingCapacity: true)
                for start in codes.indices {
                    let second = start + 1 < codes.count ? codes[start + 1] : 0
                    let third = start + 2 < codes.count ? codes[start + 2] : 0
                    let key = CatalogSearchIndex.key(codes[start], second, third)
                    let number: UInt32
                    if let known = listNumbers[key] {
                        number = known
                    } else {
                        number = UInt32(lists.count)
                        listNumbers[key] = number
                        lists.append(PostingList())
                    }
                    lists[Int(number)].add(position)
                    numbers.append(number)
                }
                if sharedLists[written.packed] != nil {
                    sharedLists[written.packed] = SharedField(lists: numbers, plain: ascii, workedOut: true)
                }
            }
            plainASCII.append(plain)
            entryStarts.append(UInt32(fields.count))
        }

        /// The index: posting lists sorted by trigram and laid end to end.
        public consuming func build() -> CatalogSearchIndex {
            let sorted = listNumbers.sorted { $0.key < $1.key }
            listNumbers = [:]
            sharedLists = [:]
            let keys = sorted.map(\.key)
            var starts: [UInt32] = [0]
            var counts: [UInt32] = []
            var postings: [UInt8] = []
            starts.reserveCapacity(keys.count + 1)
            counts.reserveCapacity(keys.count)
            postings.reserveCapacity(lists.reduce(0) { $0 + $1.bytes.count })
            for (_, number) in sorted {
                postings += lists[Int(number)].bytes
                starts.append(UInt32(postings.count))
                counts.append(lists[Int(number)].count)
                lists[Int(number)] = PostingList()  // let go once copied
            }
            return CatalogSearchIndex(
                text: text, fields: fields, entryStarts: entryStarts, alphabet: alphabet, keys: keys, starts: starts,
                counts: counts, postings: postings, plainASCII: plainASCII)
        }
    }

    private init(
        text: [UInt8], fields: [UInt64], entryStarts: [UInt32], alphabet: [Character: UInt32], keys: [UInt64],
        starts: [UInt32], counts: [UInt32], postings: [UInt8], plainASCII: [Bool]
    ) {
        self.text = text
        self.fields = fields
        self.entryStarts = entryStarts
        self.alphabet = alphabet
        self.keys = keys
        self.starts = starts
        self.counts = counts
        self.postings = postings
        self.plainASCII = plainASCII
    }

    /// Entry `position`'s fields as byte ranges of `text`.
    private func fieldRanges(of position: Int) -> some Sequence<Range<Int>> {
        fields[Int(entryStarts[position])..<Int(entryStarts[position + 1])].lazy.map { packed in
            let offset = Int(packed >> 32)
            return offset..<(offset + Int(packed & 0xFFFF_FFFF))
        }
    }

    /// Entry `position`'s fields as strings (for what bytes cannot answer).
    public func fields(of position: Int) -> [String] {
        fieldRanges(of: position).map { String(decoding: text[$0], as: UTF8.self) }
    }

    /// The positions of the first `limit` items matching `needle` (already folded and trimmed, not
    /// empty), ascending: the first `limit` of ``linearMatches(_:)``. The catalog is read in
    /// windows of positions, each twice the last, so a common query stops after the first few.
    public func matches(_ needle: String, limit: Int) -> [Int] { search(needle, limit: limit, keep: limit).positions }

    /// The positions of the first window a query reads (each next one twice the last).
    public static let firstWindow = 4096

    /// How many items match `needle`, counted up to `limit`, and the positions of the first `keep`
    /// of them (``matches(_:limit:)`` cut to `keep`): a page and the length of the list, without
    /// holding the rest. A query of one to three `Character`s of their own is answered by its
    /// trigrams alone; one of exactly three by one list, whose length is known.
    public func search(_ needle: String, limit: Int, keep: Int) -> (positions: [Int], count: Int) {
        search(needle, limit: limit, keep: keep, firstWindow: Self.firstWindow)
    }

    /// ``search(_:limit:keep:)`` reading windows from `firstWindow` positions instead of
    /// ``firstWindow``: the fuzz driver crosses many windows with a few dozen items (with 4096 it
    /// needed 4,200 items, a few inputs a second). Every window size takes the same code.
    public func search(_ needle: String, limit: Int, keep: Int, firstWindow: Int) -> (positions: [Int], count: Int) {
        precondition(firstWindow > 0, "a window holds at least one position")
        guard limit > 0, !needle.isEmpty else { return ([], 0) }
        let keep = min(keep, limit)
        var codes: [UInt32] = []
        for character in needle {
            guard let code = code(of: character) else { return ([], 0) }  // in no field at all
            codes.append(code)
        }
        var lists: [Int] = []
        if codes.count < 3 {
            let low = Self.key(codes[0], codes.count > 1 ? codes[1] : 0, 0)
            let high = codes.count > 1 ? low + 1 << Self.codeBits : low + 1 << (2 * Self.codeBits)
            lists = Array(lowerBound(low)..<lowerBound(high))
        } else {
            for start in 0...(codes.count - 3) {
                let key = Self.key(codes[start], codes[start + 1], codes[start + 2])
                let k = lowerBound(key)
                guard k < keys.count, keys[k] == key else { return ([], 0) }  // a trigram no field has
                lists.append(k)
            }
            // The rarest few narrow enough; checking the candidates is cheaper than reading more.
            lists = Array(lists.sorted { counts[$0] < counts[$1] }.prefix(Self.listsIntersected))
        }
        // Up to three characters with distinct codes: a trigram starting with them is the proof.
        let exact = codes.count <= 3 && !codes.contains(Self.sharedCode)
        if exact, codes.count == 3 {
            // One list, each item once: its length is the count, its first items the page.
            var cursor = Cursor(offset: Int(starts[lists[0]]), end: Int(starts[lists[0] + 1]))
            var positions: [Int] = []
            positions.reserveCapacity(min(keep, Int(counts[lists[0]])))
            if keep > 0 {
                advance(
                    &cursor, from: 0, below: count,
                    while: { (position: Int) -> Bool in
                        positions.append(position)
                        return positions.count < keep
                    })
            }
            return (positions, min(Int(counts[lists[0]]), limit))
        }
        let checker = Checker(needle)
        var cursors = lists.map { Cursor(offset: Int(starts[$0]), end: Int(starts[$0 + 1])) }
        var positions: [Int] = []
        var found = 0
        var low = 0
        var width = firstWindow
        // Room for every window up to the catalog's end (each is twice the last).
        var window = Bitmap(count: width, room: count)
        var other = Bitmap(count: width, room: count)
        while low < count, found < limit {
            let high = min(low + width, count)
            window.reset(count: high - low)
            if codes.count < 3 {
                for index in cursors.indices {
                    advance(&cursors[index], from: low, below: high) { window.insert($0 - low) }
                }
            } else {
                advance(&cursors[0], from: low, below: high) { window.insert($0 - low) }
                for index in cursors.indices.dropFirst() where !window.isEmpty {
                    other.reset(count: high - low)
                    advance(&cursors[index], from: low, below: high) { other.insert($0 - low) }
                    window.formIntersection(other)
                }
            }
            if exact, positions.count >= keep {
                found += window.count(upTo: limit - found)
            } else {
                window.forEach { bit in
                    let position = low + bit
                    guard exact || contains(checker, at: position) else { return true }
                    found += 1
                    if positions.count < keep { positions.append(position) }
                    return found < limit
                }
            }
            low = high
            width *= 2
        }
        return (positions, found)
    }

    /// A query as the candidates are checked against it.
    private struct Checker {
        /// The needle's `Character`s, for what bytes cannot answer.
        var characters: [Character]
        /// The needle's UTF-8 when it is all ASCII without a carriage return (every `Character` one byte).
        var plainBytes: [UInt8]?

        init(_ needle: String) {
            self.characters = Array(needle)
            self.plainBytes = CatalogSearchIndex.isPlainASCII(needle) ? Array(needle.utf8) : nil
        }
    }

    /// Whether entry `position` has a field containing the needle, as `String.contains` says.
    ///
    /// A plain ASCII needle is looked for byte by byte (`memchr`, `memcmp`). In a plain entry every
    /// `Character` is a byte, so that is the answer. In another, a byte match whose neighbours are
    /// ASCII (or the field's ends) is one of the same `Character`s: no ASCII scalar joins a grapheme
    /// cluster with its neighbour (a carriage return before a line feed aside, and neither needle
    /// nor neighbour is one), and an ASCII-only stretch breaks into one `Character` per byte. Any
    /// other case (no byte match: a `Character` canonically equal to an ASCII one can be spelled
    /// otherwise) is answered `Character` by `Character`, as `String.contains` compares
    /// (`characters(of:contain:)`).
    private func contains(_ checker: Checker, at position: Int) -> Bool {
        if let wanted = checker.plainBytes {
            let plain = plainASCII[position]
            let found = text.withUnsafeBufferPointer { text in
                wanted.withUnsafeBufferPointer { wanted in
                    fieldRanges(of: position).contains { range in
                        Self.bytes(UnsafeBufferPointer(rebasing: text[range]), contain: wanted, boundedByASCII: !plain)
                    }
                }
            }
            if found || plain { return found }
        }
        return fields(of: position).contains { Self.characters(of: $0, contain: checker.characters) }
    }

    /// Whether `needle` occurs in `field`'s `Character`s, each compared with `==` (canonical
    /// equivalence): what `String.contains` answers (``linearMatches(_:)`` asks it), without the
    /// searcher and its table of `Character`s that it builds on every call (most of a non-ASCII
    /// query's time when it was asked per candidate). Fields are short; a plain scan is enough.
    static func characters(of field: String, contain needle: [Character]) -> Bool {
        guard let first = needle.first else { return true }
        var start = field.startIndex
        while start < field.endIndex {
            if field[start] == first {
                var index = field.index(after: start)
                var matched = 1
                while matched < needle.count, index < field.endIndex, field[index] == needle[matched] {
                    field.formIndex(after: &index)
                    matched += 1
                }
                if matched == needle.count { return true }
                if index == field.endIndex { return false }  // what is left of the field is shorter than the needle
            }
            field.formIndex(after: &start)
        }
        return false
    }

    /// Whether `needle` occurs in `haystack` (when `boundedByASCII`, only where the bytes around it
    /// are ASCII or the ends).
    private static func bytes(
        _ haystack: UnsafeBufferPointer<UInt8>, contain needle: UnsafeBufferPointer<UInt8>, boundedByASCII: Bool
    ) -> Bool {
        guard let base = haystack.baseAddress, let wanted = needle.baseAddress, !needle.isEmpty else {
            return needle.isEmpty
        }
        var from = 0
        while from + needle.count <= haystack.count {
            let last = haystack.count - needle.count  // the last place a match can start
            guard let hit = memchr(base + from, Int32(wanted.pointee), last - from + 1) else { return false }
            let start = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            let end = start + needle.count
            guard memcmp(base + start, wanted, needle.count) == 0 else {
                from = start + 1
                continue
            }
            if !boundedByASCII || ((start == 0 || haystack[start - 1] < 0x80) && (end == haystack.count || haystack[end] < 0x80)) {
                return true
            }
            from = start + 1
        }
        return false
    }

    fileprivate static func isPlainASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 && $0 != 0x0D } }

    /// The search as it was before the index, over every item (the positions of those whose
    /// fields contain `needle`): the reference ``matches(_:limit:)`` must agree with.
    public func linearMatches(_ needle: String) -> [Int] {
        guard !needle.isEmpty else { return [] }
        return (0..<count).filter { position in fields(of: position).contains { $0.contains(needle) } }
    }

    /// What search does to the fields and the query before comparing (``CatalogLoader/fold(_:)``).
    public static func fold(_ text: String) -> String { CatalogLoader.fold(text) }

    fileprivate static func key(_ first: UInt32, _ second: UInt32, _ third: UInt32) -> UInt64 {
        UInt64(first) << (2 * codeBits) | UInt64(second) << codeBits | UInt64(third)
    }

    fileprivate static func code(_ character: Character, adding alphabet: inout [Character: UInt32]) -> UInt32 {
        if character.utf8.count == 1, let byte = character.utf8.first { return UInt32(byte) + 1 }
        if let code = alphabet[character] { return code }
        let next = UInt32(alphabet.count) + firstDictionaryCode
        guard next < sharedCode else { return sharedCode }
        alphabet[character] = next
        return next
    }

    /// The code `character` has in the fields, or nil when no field has it.
    private func code(of character: Character) -> UInt32? {
        if character.utf8.count == 1, let byte = character.utf8.first { return UInt32(byte) + 1 }
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

    /// Calls `body` with each position of `cursor`'s list in `low..<high` (skipping those below),
    /// leaving it at the next.
    private func advance(_ cursor: inout Cursor, from low: Int, below high: Int, _ body: (Int) -> Void) {
        advance(
            &cursor, from: low, below: high,
            while: { (position: Int) -> Bool in
                body(position)
                return true
            })
    }

    /// `advance(_:from:below:_:)`, stopping after the position for which `body` returns false.
    private func advance(_ cursor: inout Cursor, from low: Int, below high: Int, while body: (Int) -> Bool) {
        while true {
            if cursor.next < 0 {
                guard cursor.offset < cursor.end else { return }
                var delta = 0
                var shift = 0
                while true {
                    let byte = postings[cursor.offset]
                    cursor.offset += 1
                    delta |= Int(byte & 0x7F) << shift
                    if byte < 0x80 { break }
                    shift += 7
                }
                cursor.last += delta
                cursor.next = cursor.last
            }
            guard cursor.next < high else { return }
            let position = cursor.next
            cursor.next = -1
            if position >= low, !body(position) { return }
        }
    }
}

/// Where a search is in one posting list: the bytes left, and the position decoded but not used.
private struct Cursor {
    var offset: Int
    var end: Int
    var last = -1
    /// A decoded position at or past the current window, or -1.
    var next = -1
}

/// A shared field as the first item naming it worked it out: its trigrams' list numbers and
/// whether it is plain ASCII (`Builder.add(_:)`).
private struct SharedField {
    var lists: [UInt32] = []
    var plain = true
    var workedOut = false
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
        // Room for a few positions at once: glibc's malloc rounds the first buffer up to that
        // anyway, AddressSanitizer's does not and the list grew 1, 2, 4, 8 (the fuzz build's
        // index build was a third of FuzzSearch's time, most of it these reallocations).
        if bytes.isEmpty { bytes.reserveCapacity(8) }
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

    /// Empty, for positions `0..<count`, with room for `room` positions (so `reset` up to them
    /// reuses the buffer).
    init(count: Int, room: Int) {
        words = []
        words.reserveCapacity((max(count, room) + 63) / 64)
        words.append(contentsOf: repeatElement(0, count: (count + 63) / 64))
    }

    var isEmpty: Bool { words.allSatisfy { $0 == 0 } }

    /// Empty, for positions `0..<count`, in the buffer it has when that is large enough (each
    /// window is twice the last: a fresh array per window was an allocation per window and
    /// bitmap).
    mutating func reset(count: Int) {
        let needed = (count + 63) / 64
        if words.count == needed {
            for index in words.indices { words[index] = 0 }
        } else {
            words.removeAll(keepingCapacity: true)
            words.append(contentsOf: repeatElement(0, count: needed))
        }
    }

    mutating func insert(_ position: Int) { words[position >> 6] |= 1 << UInt64(position & 63) }
    mutating func formIntersection(_ other: Bitmap) {
        for index in words.indices { words[index] &= other.words[index] }
    }

    /// How many positions it holds, counting no further than `limit`.
    func count(upTo limit: Int) -> Int {
        var total = 0
        for word in words where total < limit { total += word.nonzeroBitCount }
        return min(total, limit)
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
