import DashportMessages
import DashportServices
import Foundation
@testable import DashportFuzzDrivers
import DashportTestSupport
import Testing

/// Replays every input kept in `FuzzCrashes/` (inputs that ever crashed `tools/fuzz/FuzzServices`,
/// and `seed-*.bin` ones from `Fixtures/services/generate.py`) through the fuzzer's own driver: the
/// DashportFuzzDrivers library (tools/fuzz/Drivers) is what the fuzz target runs, so an input takes
/// exactly the path it took under libFuzzer. A broken invariant is an issue here instead of a trap.
@Suite struct FuzzReplayTests {
    static func seed(_ name: String) throws -> [UInt8] {
        try FuzzReplay.keptInput("seed-\(name).bin")
    }

    @Test func folderHoldsASeedForEveryService() throws {
        let selectors = Set(try FuzzReplay.keptInputs().filter { $0.name.hasPrefix("seed-") }.compactMap { $0.bytes.first.map { $0 % 5 } })
        #expect(selectors == [0, 1, 2, 3, 4], "seeds for the input, status, classic, media channel and media sink services")
    }

    @Test func everyKeptInputKeepsTheInvariants() throws {
        let inputs = try FuzzReplay.keptInputs()
        try #require(!inputs.isEmpty, "FuzzCrashes/ must hold at least one input to replay")
        for (name, bytes) in inputs {
            FuzzReplay.run(name) { ServicesFuzz.run(bytes) }
        }
    }

    /// The seeds reach past the first message: answers, covers and pushes really happen.
    @Test func seedsReachTheAnswerPaths() throws {
        var reader = ServicesFuzz.Reader(bytes: try Self.seed("status-start-cover-tick"), index: 1)
        let status = ServicesFuzz.runStatus(&reader)
        #expect(status.statuses >= 2 && status.covers >= 1)

        reader = ServicesFuzz.Reader(bytes: try Self.seed("classic-source-two-pages"), index: 1)
        var classic = ServicesFuzz.ClassicRun(&reader)
        classic.run()
        #expect(classic.nodes == 1 && classic.nodesWithCovers == 1 && classic.issued.count >= 4)

        reader = ServicesFuzz.Reader(bytes: try Self.seed("media-browse-and-answer"), index: 1)
        var media = ServicesFuzz.MediaRun(&reader)
        media.run()
        #expect(media.sent[.browseResult] == 2 && media.sent[.mediaItemState] == 1 && media.pending.isEmpty)

        reader = ServicesFuzz.Reader(bytes: try Self.seed("media-commands"), index: 1)
        media = ServicesFuzz.MediaRun(&reader)
        media.run()
        #expect(media.sent[.commandResult] == 5 && media.issued.count == 5 && media.pending.isEmpty)

        reader = ServicesFuzz.Reader(bytes: try Self.seed("media-volume-and-sleep"), index: 1)
        media = ServicesFuzz.MediaRun(&reader)
        media.run()
        #expect(media.sent[.commandResult] == 3 && media.issued.count == 3 && media.pending.isEmpty)
        #expect(media.sent[.sleepTimerState] == 2 && media.sent[.sleepTimerFired] == 1 && media.sent[.remotePlaybackState] == 1)

        reader = ServicesFuzz.Reader(bytes: try Self.seed("sink-focus-window-duck"), index: 1)
        var sink = ServicesFuzz.SinkRun(&reader)
        sink.run()
        #expect(sink.packets == 8 && sink.nextSession == 2 && sink.underflows == 1 && sink.acks == 2)
        #expect(sink.service.ackless && sink.service.statistics.dropped == 2 && !sink.streaming && !sink.focus)

        reader = ServicesFuzz.Reader(bytes: try Self.seed("sink-protocol5-bad-bodies"), index: 1)
        sink = ServicesFuzz.SinkRun(&reader)
        sink.run()
        #expect(sink.packets == 6 && sink.nextSession == 2 && sink.acks == 1 && sink.streaming)
        #expect(sink.service.configurationIndex == 0 && sink.service.gain == 0)
    }

    /// The checks are live: what the fuzzer would trap on is reported here.
    @Test func brokenOutputIsReported() {
        let wrongChannel = FuzzReplay.violations {
            ServicesFuzz.checkSize(OutgoingMessage(channel: 16, messageId: 0x8001, body: []), channel: 15)
        }
        #expect(!wrongChannel.isEmpty, "a message on another channel than the service's")
        let unreadable = FuzzReplay.violations { _ = ServicesFuzz.decode(AAP.MediaRootNode.self, [0x0A, 0x05, 0x2F]) }
        #expect(!unreadable.isEmpty, "a body the generated type cannot read")
        let fine = FuzzReplay.violations {
            ServicesFuzz.checkSize(OutgoingMessage(channel: 15, messageId: 0x8001, body: []), channel: 15)
        }
        #expect(fine.isEmpty, "a message on the service's own channel passes: \(fine)")
    }
}
