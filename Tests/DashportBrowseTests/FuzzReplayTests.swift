// Tests/DashportBrowseTests/FuzzReplayTests.swift - the catalog reader's fuzz driver over its kept inputs.

import DashportTestSupport
import Testing
@testable import DashportFuzzDrivers

/// Replays every input kept in `FuzzCrashes/` through the fuzzer's own driver
/// (tools/fuzz/Drivers/CatalogFuzz.swift): a broken invariant is an issue here instead of a trap.
@Suite struct FuzzReplayTests {
    @Test func everyKeptInputKeepsTheInvariants() throws {
        let inputs = try FuzzReplay.keptInputs()
        try #require(!inputs.isEmpty, "FuzzCrashes/ must hold at least one input to replay")
        for (name, bytes) in inputs {
            FuzzReplay.run(name) { CatalogFuzz.run(bytes) }
        }
    }

    @Test func theChecksFire() {
        #expect(FuzzReplay.violations { CatalogFuzz.run(Array(#"{"format": "dashport.catalog"}"#.utf8)) }.isEmpty)
        #expect(FuzzReplay.violations { fuzzCheck(false, "planted") } == ["planted"])
    }
}
