import Foundation
@testable import DashportFuzzLinkDrivers
import DashportTestSupport
import Testing
import DashportLink

/// Replays every input kept in `FuzzCrashes/` (inputs that ever crashed `tools/fuzz/FuzzLink`, and
/// hand-made `seed-*.bin` ones) through the fuzzer's own driver: the DashportFuzzLinkDrivers library
/// (tools/fuzz/Link) is what the fuzz target runs, so an input takes exactly the path it took
/// under libFuzzer. A broken invariant is an issue here instead of a trap; a crash of the link
/// itself still crashes the test.
@Suite struct FuzzReplayTests {
    @Test func folderHoldsSeedsOfBothModes() throws {
        let seeds = try FuzzReplay.keptInputs().filter { $0.name.hasPrefix("seed-") }
        #expect(seeds.contains { ($0.bytes.first ?? 1) & 1 == 0 }, "a raw-mode seed (first byte even)")
        #expect(seeds.contains { ($0.bytes.first ?? 0) & 1 == 1 }, "a running-mode seed (first byte odd)")
    }

    @Test func everyKeptInputKeepsTheInvariants() throws {
        let inputs = try FuzzReplay.keptInputs()
        try #require(!inputs.isEmpty, "FuzzCrashes/ must hold at least one input to replay")
        for (name, bytes) in inputs {
            // Kept inputs of the three targets live here: each goes through the three drivers
            // (FuzzLink over real TLS, FuzzLinkRunning and FuzzLinkStream over the null record layer).
            FuzzReplay.run(name) { LinkFuzz.run(bytes) }
            FuzzReplay.run("\(name) (FuzzLinkRunning)") { LinkFuzz.runPostHandshake(bytes) }
            FuzzReplay.run("\(name) (FuzzLinkStream)") { LinkFuzz.runPlaintextStream(bytes) }
        }
    }

    /// The checks are live: a send the fuzzer would trap on is reported here.
    @Test func brokenFramesAreReported() {
        let short = FuzzReplay.violations { LinkFuzz.checkFrames([0x00, 0x03, 0x00, 0x01, 0x42]) }
        #expect(!short.isEmpty, "a BULK frame too short for a message id")
        let unfinished = FuzzReplay.violations {
            LinkFuzz.checkFrames([0x05, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x09, 0x80, 0x01])
        }
        #expect(!unfinished.isEmpty, "a FIRST frame with no LAST")
        let large = FuzzReplay.violations { LinkFuzz.checkFrames([0x05, 0x03, 0x40, 0x00] + [UInt8](repeating: 0, count: 0x4000)) }
        #expect(!large.isEmpty, "a frame over 16384 bytes")
        let good = FuzzReplay.violations { LinkFuzz.checkFrames([0x00, 0x03, 0x00, 0x02, 0x80, 0x01]) }
        #expect(good.isEmpty, "a well-formed BULK frame passes: \(good)")
    }

    /// A running-mode seed really reaches the running link: its service message arrives.
    @Test func runningSeedDeliversItsMessage() {
        // Head unit as configured by 0x01; then op 1: channel index 1 (input, 8; the audio sink 4 sorts
        // first), id 0x8001, 3 bytes.
        let script = LinkFuzz.Script([0x01, 0x01, 0x01, 0x80, 0x01, 0x03, 0x0A, 0x0B, 0x0C])
        script.run()
        #expect(script.watch.messages.count == 1)
        #expect(script.watch.messages.first?.channel == 8)
        #expect(script.watch.messages.first?.id == 0x8001)
        #expect(script.watch.messages.first?.body == [0x0A, 0x0B, 0x0C])
        #expect(script.watch.closed, "the script ends with a bye-bye")
    }

    /// With bit 7 the discovery response is the input's: the kept seed's odd entries (ids 0, 300
    /// and -1, a repeated 13) are skipped, the rest listed, and the link still runs.
    @Test func fuzzedDiscoveryResponseIsParsed() throws {
        let bytes = try FuzzReplay.keptInput("seed-run-discovery-odd-entries.bin")
        let script = LinkFuzz.Script(bytes)
        script.run()
        #expect(script.phone.car?.services.map(\.channel) == [13, 15, 16, 42, 8])
        #expect(script.watch.setupStep == 4)
    }
}
