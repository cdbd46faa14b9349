// The FuzzBrowse driver: arbitrary text as a catalog's searchable fields and as the cars' queries.
@_spi(SearchReference) import DashportBrowse

/// Splits the input (after its first byte) at newlines into fields (each cut to
/// `fieldCharacters`), three to an item, folds them
/// as a catalog load does, and builds the search index over them; with the first byte odd the
/// items are repeated past 150 and queries read windows from 1 to 32 positions wide (the first
/// byte's other bits; the server's is 4096), so they cross several windows and bitmap words with
/// a hundred or two items (it took 4,200 items and ran a few inputs a second before). The first
/// four fields (two when repeated), folded, and their first one, two and three `Character`s and
/// their middle third are asked for (queries of the car's own, then), and checked through
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
        var entries: [[String]] = []
        var ids: [String] = []
        let groups = stride(from: 0, to: parts.count, by: 3).map { Array(parts[$0..<min($0 + 3, parts.count)]) }
        let repeated = first & 1 == 1
        let copies = repeated ? 150 / max(1, groups.count) + 1 : 1
        let firstWindow = repeated ? 1 + Int(first >> 1) % 32 : CatalogSearchIndex.firstWindow
        let folded = groups.map { $0.map(CatalogSearchIndex.fold) }
        for copy in 0..<copies {
            for (index, group) in folded.enumerated() {
                ids.append("\(copy)-\(index)")
                entries.append(group)
            }
        }
        let index = CatalogSearchIndex(entries)
        // The reference: every item compared. Repeated items are copies of the first `groups`, so
        // the linear search runs over one copy and its answer is repeated per copy (the same
        // comparisons, once instead of a few hundred times: String.contains was most of the time).
        let reference = repeated ? CatalogSearchIndex(Array(entries.prefix(groups.count))) : index
        func linearMatches(_ query: String) -> [Int] {
            let once = reference.linearMatches(query)
            guard repeated else { return once }
            return (0..<copies).flatMap { copy in once.map { copy * groups.count + $0 } }
        }
        // The queries come from the first four fields (two with repeated items): each query costs
        // the index's candidate checks (String.contains off plain ASCII) and the linear search,
        // and with queries from twelve fields an input took milliseconds (issue 23 item 8).
        var queries: Set<String> = []
        for part in parts.prefix(repeated ? 2 : 4) {
            let folded = Array(CatalogSearchIndex.fold(part))
            guard !folded.isEmpty else { continue }
            queries.insert(String(folded))
            for length in 1...3 where length <= folded.count { queries.insert(String(folded[0..<length])) }
            queries.insert(String(folded[(folded.count / 3)..<max(folded.count / 3 + 1, 2 * folded.count / 3)]))
        }
        for query in queries.sorted() {
            let linear = linearMatches(query).map { ids[$0] }
            for limit in [1, 7, Int.max] {
                let indexed = index.search(query, limit: limit, keep: limit, firstWindow: firstWindow).positions.map { ids[$0] }
                fuzzCheck(
                    indexed == Array(linear.prefix(limit)), "the index's first \(limit) for '\(query)' differ from the linear search's")
                for keep in [0, 3] {
                    let (kept, count) = index.search(query, limit: limit, keep: keep, firstWindow: firstWindow)
                    fuzzCheck(
                        kept.map { ids[$0] } == Array(linear.prefix(min(keep, limit))) && count == min(linear.count, limit),
                        "the index's count to \(limit) (keeping \(keep)) for '\(query)' differs from the linear search's")
                }
            }
        }
    }
}
