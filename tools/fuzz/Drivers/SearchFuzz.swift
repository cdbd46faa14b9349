// The FuzzBrowse driver: arbitrary text as a catalog's searchable fields and as the cars' queries.
@_spi(SearchReference) import DashportBrowse

/// Splits the input (after its first byte) at newlines into fields, three to an item, folds them
/// as a catalog load does, and builds the search index over them; with the first byte odd the
/// items are repeated past 300 and queries read windows from 1 to 64 positions wide (the first
/// byte's other bits; the server's is 4096), so they cross several windows and bitmap words with
/// a few hundred items (it took 4,200 items and ran a few inputs a second before). Every
/// field, folded, and its first one, two and three `Character`s and its middle third are asked
/// for (queries of the car's own, then), and checked through `fuzzCheck` (FuzzInvariant.swift: a
/// trap under libFuzzer, an issue in the replay test): the index gives the first 1, 7 and all of
/// what the linear search gives, in the same order (four of the queries when the items are repeated).
public enum SearchFuzz {
    public static func run(_ input: [UInt8]) {
        guard let first = input.first else { return }
        let parts = String(decoding: input.dropFirst(), as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false).prefix(48).map(String.init)
        var entries: [[String]] = []
        var ids: [String] = []
        let groups = stride(from: 0, to: parts.count, by: 3).map { Array(parts[$0..<min($0 + 3, parts.count)]) }
        let repeated = first & 1 == 1
        let copies = repeated ? 300 / max(1, groups.count) + 1 : 1
        let firstWindow = repeated ? 1 + Int(first >> 1) % 64 : CatalogSearchIndex.firstWindow
        for copy in 0..<copies {
            for (index, group) in groups.enumerated() {
                let id = "\(copy)-\(index)"
                ids.append(id)
                entries.append(group.map(CatalogSearchIndex.fold))
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
        var queries: Set<String> = []
        for part in parts.prefix(12) {
            let folded = Array(CatalogSearchIndex.fold(part))
            guard !folded.isEmpty else { continue }
            queries.insert(String(folded))
            for length in 1...3 where length <= folded.count { queries.insert(String(folded[0..<length])) }
            queries.insert(String(folded[(folded.count / 3)..<max(folded.count / 3 + 1, 2 * folded.count / 3)]))
        }
        // Repeated items make the linear search slower: a dozen queries then.
        for query in queries.sorted().prefix(repeated ? 12 : .max) {
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
