// The FuzzSearch driver: arbitrary text as a catalog's searchable fields and as the cars' queries.
@_spi(SearchReference) import DashportBrowse
import DashportFuzzSupport

/// Splits the input (after its first byte) at newlines into fields (each cut to
/// `fieldCharacters`), three to an item, folds them as a catalog load does, and builds the search
/// index over them. With the first byte odd the items are repeated (`copies`), each copy followed
/// by `gap` items without a searchable field (bits 6–7: 0, 5, 61 or 250), and queries read
/// windows from 1 to 32 positions wide (bits 1–5; the server's is 4096), so they cross several
/// windows and bitmap words with a few dozen candidates: the empty items are in no posting list,
/// so they spread the copies over the positions without being candidates (every copy of a
/// matching item is one, and 150 dense copies made an input cost milliseconds). Two of the
/// queries made from the first field (all of it, its first one, two and three `Character`s, its
/// middle third: the car's own queries, then) are asked, each for everything and for two other
/// pages, and checked through `fuzzCheck` (FuzzInvariant.swift: a trap under libFuzzer, an issue
/// in the replay test): the index gives the page and the count the linear search gives, in the
/// same order.
public enum SearchFuzz {
    /// Fields are cut to this many `Character`s: a candidate check off plain ASCII compares
    /// `Character`s, whose cost grows with both lengths, and inputs of 4 KiB made fields of
    /// hundreds (a few inputs a second); no window or trigram path needs a long field.
    static let fieldCharacters = 24

    /// The empty items after each copy of the input's items, by the first byte's bits 6–7.
    static let gaps = [0, 5, 61, 250]

    /// How many times the input's items are repeated with `gap` empty items after each copy: at
    /// least two, a few hundred positions in all, and about 24 items that can match at most
    /// (each copy of a matching item is a candidate every search checks).
    static func copies(groups: Int, gap: Int) -> Int { max(2, min(1 + 300 / max(1, groups + gap), 24 / max(1, groups))) }

    /// The pages asked besides everything (limit, keep): `search` stops early at a limit, takes
    /// the count alone past what it keeps, and answers one trigram's list by its length.
    static let pages = [(1, 1), (1, 0), (7, 7), (7, 0), (7, 3), (Int.max, 0), (Int.max, 3), (Int.max, 1)]

    public static func run(_ input: [UInt8]) {
        guard let first = input.first else { return }
        let parts = String(decoding: input.dropFirst(), as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false).prefix(48).map { String($0.prefix(Self.fieldCharacters)) }
        let groups = stride(from: 0, to: parts.count, by: 3).map { Array(parts[$0..<min($0 + 3, parts.count)]) }
        let repeated = first & 1 == 1
        let gap = repeated ? Self.gaps[Int(first >> 6)] : 0
        let copies = repeated ? Self.copies(groups: groups.count, gap: gap) : 1
        let stride = groups.count + gap  // positions from one copy of an item to the next
        let firstWindow = repeated ? 1 + Int(first >> 1) % 32 : CatalogSearchIndex.firstWindow
        let folded = groups.map { $0.map(CatalogSearchIndex.fold) }
        // Item `copy * stride + g` is group `g` (`g < groups.count`), the rest of each stride
        // items without fields. Repeated items name their group's fields, each written once as a shared field
        // (the loader's path for an artist or album many items share): its trigrams are worked
        // out once, not once per copy.
        let index: CatalogSearchIndex
        if repeated {
            var builder = CatalogSearchIndex.Builder()
            var written: [[(String, CatalogSearchIndex.Builder.Field)]] = []
            for group in folded {
                var fields: [(String, CatalogSearchIndex.Builder.Field)] = []
                for field in group { fields.append((field, builder.field(field, shared: true))) }
                written.append(fields)
            }
            for _ in 0..<copies {
                for fields in written { builder.add(fields) }
                for _ in 0..<gap { builder.add([]) }
            }
            index = builder.build()
        } else {
            index = CatalogSearchIndex(folded)
        }
        fuzzCheck(index.count == copies * stride, "the index holds \(index.count) items, not \(copies * stride)")
        // The reference: every item compared. Without copies, the index's own `linearMatches`
        // (which reads the fields back from the index's text). With them, the same comparison
        // (`String.contains` on each folded field) over one copy of the input's items, repeated
        // per copy at its positions: once instead of once per copy, and no second index built
        // for it (that build was a tenth of the time); empty items match no query.
        func linearMatches(_ query: String) -> [Int] {
            guard repeated else { return index.linearMatches(query) }
            let once = folded.indices.filter { folded[$0].contains { $0.contains(query) } }
            return (0..<copies).flatMap { copy in once.map { copy * stride + $0 } }
        }
        // The queries come from the first field: all of it, its first one, two and three
        // `Character`s and its middle third, and two of those are asked (which two turns with the
        // input's last byte): each query costs a linear search and three indexed ones, whose
        // candidate checks go through every matching copy (five queries of nine searches each
        // were most of an input's time; issue 23 item 8). The fuzzer varies the first field.
        var queries: Set<String> = []
        for group in folded.prefix(1) {
            let folded = Array(group[0])
            guard !folded.isEmpty else { continue }
            queries.insert(String(folded))
            for length in 1...3 where length <= folded.count { queries.insert(String(folded[0..<length])) }
            queries.insert(String(folded[(folded.count / 3)..<max(folded.count / 3 + 1, 2 * folded.count / 3)]))
        }
        let sorted = queries.sorted()
        let pick = Int(input.last ?? 0)
        let asked = sorted.isEmpty ? [] : Set([pick % sorted.count, (pick / 5 + 1 + pick) % sorted.count]).sorted().map { sorted[$0] }
        // Each query: everything, and two of the eight other pages (a limit of 1, 7 or all, keeping
        // none, 3 or all of it), which ones turning with the query's place and the first byte's
        // bits 1–3 (`search` stops early at a limit, counts past what it keeps, and answers one
        // trigram's list by its length).
        var turn = Int(first >> 1) & 7
        for query in asked {
            let linear = linearMatches(query)
            check(index.search(query, limit: .max, keep: .max, firstWindow: firstWindow), .max, .max)
            for _ in 0..<2 {
                let (limit, keep) = Self.pages[turn % Self.pages.count]
                turn += 3
                check(index.search(query, limit: limit, keep: keep, firstWindow: firstWindow), limit, keep)
            }
            func check(_ answer: (positions: [Int], count: Int), _ limit: Int, _ keep: Int) {
                fuzzCheck(
                    answer.positions == Array(linear.prefix(min(keep, limit))) && answer.count == min(linear.count, limit),
                    "the index's first \(min(keep, limit)) and count to \(limit) for '\(query)' differ from the linear search's"
                        + " (\(answer.positions), \(answer.count) for \(linear))")
            }
        }
    }
}
