// The FuzzBrowse driver: arbitrary text as a catalog's searchable fields and as the cars' queries.
@_spi(SearchReference) import DashportBrowse

/// Splits the input (after its first byte) at newlines into fields (each cut to
/// `fieldCharacters`), three to an item, folds them
/// as a catalog load does, and builds the search index over them; with the first byte odd the
/// items are repeated past 150 and queries read windows from 1 to 32 positions wide (the first
/// byte's other bits; the server's is 4096), so they cross several windows and bitmap words with
/// a hundred or two items (it took 4,200 items and ran a few inputs a second before). The first
/// field, folded, and its first one, two and three `Character`s and its middle third are asked
/// for (queries of the car's own, then), and checked through
/// `fuzzCheck` (FuzzInvariant.swift: a trap under libFuzzer, an issue in the replay test): the
/// index gives the first 1, 7 and all of what the linear search gives, in the same order.
public enum SearchFuzz {
    /// Fields are cut to this many `Character`s: a candidate check off plain ASCII is a
    /// `String.contains`, whose cost grows with both lengths, and inputs of 4 KiB made fields of
    /// hundreds (a few inputs a second); no window or trigram path needs a long field.
    static let fieldCharacters = 24

    public static func run(_ input: [UInt8]) {
        guard let first = input.first else { return }
        let parts = String(decoding: input.dropFirst(), as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false).prefix(48).map { String($0.prefix(Self.fieldCharacters)) }
        let groups = stride(from: 0, to: parts.count, by: 3).map { Array(parts[$0..<min($0 + 3, parts.count)]) }
        let repeated = first & 1 == 1
        let copies = repeated ? 150 / max(1, groups.count) + 1 : 1
        let firstWindow = repeated ? 1 + Int(first >> 1) % 32 : CatalogSearchIndex.firstWindow
        let folded = groups.map { $0.map(CatalogSearchIndex.fold) }
        // Item `copy * groups.count + g` is group `g`. Repeated items name their group's fields,
        // each written once as a shared field (the loader's path for an artist or album many
        // items share): its trigrams are worked out once, not once per copy.
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
            }
            index = builder.build()
        } else {
            index = CatalogSearchIndex(folded)
        }
        // The reference: every item compared. Repeated items are copies of the first `groups`, so
        // the linear search runs over one copy and its answer is repeated per copy (the same
        // comparisons, once instead of a few hundred times: String.contains was most of the time).
        let reference = repeated ? CatalogSearchIndex(folded) : index
        func linearMatches(_ query: String) -> [Int] {
            let once = reference.linearMatches(query)
            guard repeated else { return once }
            return (0..<copies).flatMap { copy in once.map { copy * groups.count + $0 } }
        }
        // The queries come from the first field: each query costs nine searches, whose candidate
        // checks go through every matching copy, and the linear search; with queries from four
        // fields an input took milliseconds (issue 23 item 8). The fuzzer varies the first field.
        var queries: Set<String> = []
        for group in folded.prefix(1) {
            let folded = Array(group[0])
            guard !folded.isEmpty else { continue }
            queries.insert(String(folded))
            for length in 1...3 where length <= folded.count { queries.insert(String(folded[0..<length])) }
            queries.insert(String(folded[(folded.count / 3)..<max(folded.count / 3 + 1, 2 * folded.count / 3)]))
        }
        for query in queries.sorted() {
            let linear = linearMatches(query)
            for limit in [1, 7, Int.max] {
                let indexed = index.search(query, limit: limit, keep: limit, firstWindow: firstWindow).positions
                fuzzCheck(
                    indexed == Array(linear.prefix(limit)), "the index's first \(limit) for '\(query)' differ from the linear search's")
                for keep in [0, 3] {
                    let (kept, count) = index.search(query, limit: limit, keep: keep, firstWindow: firstWindow)
                    fuzzCheck(
                        kept == Array(linear.prefix(min(keep, limit))) && count == min(linear.count, limit),
                        "the index's count to \(limit) (keeping \(keep)) for '\(query)' differs from the linear search's")
                }
            }
        }
    }
}
