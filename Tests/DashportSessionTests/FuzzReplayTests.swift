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

    /// The driver's byte checks (by memcmp, and one comparison for silence) say what `==` says.
    @Test func byteChecksCompareEveryByte() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var other = bytes
        #expect(AudioInputFuzz.same(bytes[...], other[...]))
        other[999] ^= 1
        #expect(!AudioInputFuzz.same(bytes[...], other[...]), "the last byte differs")
        #expect(!AudioInputFuzz.same(bytes[...], bytes.dropLast()), "lengths differ")
        #expect(AudioInputFuzz.same([][...], [][...]))
        #expect(AudioInputFuzz.same(bytes[3..<10], Array(bytes[3..<10])[...]), "slices at any offset")
        var silence = [UInt8](repeating: 0, count: 21)
        #expect(AudioInputFuzz.silent(silence[...]) && AudioInputFuzz.silent(silence[5...]) && AudioInputFuzz.silent([][...]))
        for index in [0, 7, 8, 20] {
            silence[index] = 1
            #expect(!AudioInputFuzz.silent(silence[...]), "a non-zero byte at \(index)")
            silence[index] = 0
        }
    }
}
