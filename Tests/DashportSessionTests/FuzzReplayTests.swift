import DashportSession
import DashportTestSupport
import Testing

@testable import DashportFuzzDrivers

/// Replays every input kept in `FuzzCrashes/` through the FuzzSession driver (the audio input
/// buffer against its model, tools/fuzz/Drivers/AudioInputFuzz.swift): a broken invariant is an
/// issue here instead of a trap.
@Suite struct FuzzReplayTests {
    @Test func everyKeptInputKeepsTheInvariants() throws {
        let inputs = try FuzzReplay.keptInputs()
        try #require(!inputs.isEmpty, "FuzzCrashes/ must hold at least one input to replay")
        for (name, bytes) in inputs {
            FuzzReplay.run(name) { AudioInputFuzz.run(bytes) }
        }
    }

    @Test func theChecksFire() {
        // Begin, write a packet and a half, pull a packet, end, pull twice: within the contract.
        #expect(FuzzReplay.violations { AudioInputFuzz.run([0, 1, 0x30, 0x00, 2, 1, 3, 2, 1, 2, 1]) }.isEmpty)
        #expect(FuzzReplay.violations { fuzzCheck(false, "planted") } == ["planted"])
    }
}
