// Tests/DashportBrowseTests/FuzzReplayTests.swift - every kept FuzzBrowse input, replayed.

import DashportTestSupport
import Testing
@testable import DashportFuzzBrowseDrivers
import DashportFuzzSupport

/// Replays every input kept in `FuzzCrashes/` through the fuzzer's own drivers (the catalog reader,
/// tools/fuzz/Browse/CatalogFuzz.swift, and search, SearchFuzz.swift): a broken invariant is an
/// issue here instead of a trap.
@Suite struct FuzzReplayTests {
    @Test func everyKeptInputKeepsTheInvariants() throws {
        let inputs = try FuzzReplay.keptInputs()
        try #require(!inputs.isEmpty, "FuzzCrashes/ must hold at least one input to replay")
        for (name, bytes) in inputs {
            FuzzReplay.run(name) {
                CatalogFuzz.run(bytes)
                SearchFuzz.run(bytes)
            }
        }
    }

    @Test func theChecksFire() {
        #expect(FuzzReplay.violations { CatalogFuzz.run(Array(#"{"format": "dashport.catalog"}"#.utf8)) }.isEmpty)
        #expect(FuzzReplay.violations { SearchFuzz.run(Array("\u{1}Déjà Vu\nBeyoncé\nAlbum\nStraße".utf8)) }.isEmpty)
        #expect(FuzzReplay.violations { fuzzCheck(false, "planted") } == ["planted"])
    }
}
