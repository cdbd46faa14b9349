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
    /// The model keeps stretches of the written stream instead of its bytes: the stream is the
    /// pattern the writes are cut from, from any position, and a model's pull hands out the
    /// stretches a byte FIFO would (a write that did not fit, a writer's partial frame, a pull
    /// across two writes).
    @Test func theModelKeepsTheStreamsStretches() {
        for position in [0, 1, 255, 256, 1000, 70_001] {
            let range = position..<(position + 300)
            #expect(Array(AudioInputFuzz.stream(range)) == range.map { UInt8(truncatingIfNeeded: $0 &* 7) })
        }
        var model = AudioInputFuzz.Model()
        model.writerBegan()
        model.write(0..<6)
        model.writerBegan()  // the partial frame (bytes 4 and 5) goes
        model.write(6..<14)
        #expect(model.fifo == [0..<4, 6..<14] && model.count == 12 && model.dropped == 2)
        #expect(model.pull(2) == [0..<4, 6..<10])
        #expect(model.fifo == [10..<14] && model.count == 4)
        model.write(14..<(14 + SessionAudioInput.capacityBytes))
        #expect(model.count == SessionAudioInput.capacityBytes && model.dropped == 6)
        #expect(model.fifo == [10..<(10 + SessionAudioInput.capacityBytes)], "a write right after the last is one stretch")
    }

    @Test func byteChecksCompareEveryByte() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var other = bytes
        #expect(AudioInputFuzz.same(bytes[...], other[...]))
        other[999] ^= 1
        #expect(!AudioInputFuzz.same(bytes[...], other[...]), "the last byte differs")
        #expect(!AudioInputFuzz.same(bytes[...], bytes.dropLast()), "lengths differ")
        #expect(AudioInputFuzz.same([][...], [][...]))
        #expect(AudioInputFuzz.same(bytes[3..<10], Array(bytes[3..<10])[...]), "slices at any offset")
        // Longer than the zeros it is compared with, so the comparison goes in pieces.
        var silence = [UInt8](repeating: 0, count: 2 * AudioInputFuzz.zeros.count + 21)
        #expect(AudioInputFuzz.silent(silence[...]) && AudioInputFuzz.silent(silence[5...]) && AudioInputFuzz.silent([][...]))
        for index in [0, 7, 8, 20, AudioInputFuzz.zeros.count, silence.count - 1] {
            silence[index] = 1
            #expect(!AudioInputFuzz.silent(silence[...]), "a non-zero byte at \(index)")
            silence[index] = 0
        }
    }
}
