import Foundation
import Testing
import DashportControl
@testable import DashportFuzzDrivers
import DashportTestSupport

/// Replays every input kept in `FuzzCrashes/` through the fuzzer's own driver (the DashportFuzzDrivers
/// library, tools/fuzz/Drivers/ControlFuzz.swift): a broken invariant is an issue here instead of a trap.
@Suite struct FuzzReplayTests {
    @Test func everyKeptInputKeepsTheInvariants() throws {
        let inputs = try FuzzReplay.keptInputs()
        try #require(!inputs.isEmpty, "FuzzCrashes/ must hold at least one input to replay")
        for (name, bytes) in inputs {
            FuzzReplay.run(name) { ControlFuzz.run(bytes) }
        }
    }

    @Test func theChecksFire() {
        #expect(FuzzReplay.violations { ControlFuzz.run(Array("status\ninvalidate \"a b\"\n".utf8)) }.isEmpty)
        // The driver really checks: a broken framing invariant is reported, not ignored.
        #expect(FuzzReplay.violations { fuzzCheck(false, "planted") } == ["planted"])
    }
}
