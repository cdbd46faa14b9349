import Testing
@testable import DashportFuzzDrivers
import DashportTestSupport

/// Replays every input kept in `FuzzCrashes/` through the FuzzMPD driver (tools/fuzz/Drivers/MPDFuzz.swift).
@Suite struct FuzzReplayTests {
    @Test func everyKeptInputKeepsTheInvariants() throws {
        let inputs = try FuzzReplay.keptInputs()
        try #require(!inputs.isEmpty, "FuzzCrashes/ must hold at least one input to replay")
        for (name, bytes) in inputs {
            FuzzReplay.run(name) { MPDFuzz.run(bytes) }
        }
    }

    @Test func theChecksFire() {
        #expect(FuzzReplay.violations { MPDFuzz.run(Array("\u{0}OK MPD 0.23.5\nfile: x\nOK\n".utf8)) }.isEmpty)
        // MPD's tokenizer model reads quoting back (so the round-trip check can fail).
        #expect(MPDFuzz.tokenize(Array(#"find "a\"b" "c\\""#.utf8)) == ["find", #"a"b"#, #"c\"#])
        #expect(MPDFuzz.tokenize(Array(#"find "open"#.utf8)) == nil)
    }
}
