@testable import dashport_bench_audio
import DashportBenchSupport
import DashportCommandLine
import DashportSession
import Testing

/// `dashport-bench-audio`'s measuring core, run small so the benchmark cannot rot unnoticed: it
/// must still connect cars, stream to them, time what they hear and measure its reference. Only
/// that figures came out and make sense is checked, never how fast anything was.
@Suite("Audio benchmark core", .serialized)
struct AudioBenchTests {
    @Test func twoCarsForAFewSecondsGiveEveryFigure() async throws {
        var options = Options()
        options.cars = 2
        options.seconds = 2
        options.browsers = 1
        options.browseSeconds = 1
        options.samples = 1
        options.referenceSeconds = 1
        options.memorySamples = 2
        options.childSeconds = 1  // the server-alone phase runs the `dashport` built beside the tests
        let bench = try await AudioBench.make(options)
        defer { bench.cleanUp() }
        let report = try await bench.measure()

        #expect(report.violations.isEmpty)
        #expect(report.alone.fewestPackets > 0, "every car heard the stream")
        #expect(report.alone.lateness.count > 0 && report.alone.lateness.count <= report.alone.packets)
        #expect(report.alone.lateness.percentile(0.5) <= report.alone.lateness.maximum)
        #expect(report.alone.bytes > report.alone.packets * SessionAudioFormat.bytesPerPacket, "DATA bodies and their framing")
        #expect(report.referencePacketBytes > SessionAudioFormat.bytesPerPacket)
        let beside = try #require(report.beside)
        #expect(beside.fewestPackets > 0)
        #expect(report.browseAnswers > 0)

        #expect(report.serverCPU > 0 && report.referenceCPU > 0 && report.carsCPU > 0)
        #expect(report.perCarCPUPerAudioSecond.isFinite && report.referencePerConnectionSecond.isFinite)
        #expect(report.referencePackets > 0)
        #expect(report.alone.reactorWait.isFinite && report.alone.reactorWait >= 0, "the server reactor's run-queue wait was read")

        // The first PLAY and one more, at both cars; one PAUSE at both.
        #expect(report.playToData.count == 4)
        #expect(report.pauseToStop.count == 2)
        #expect((report.playToData + report.pauseToStop).allSatisfy { $0.isFinite && $0 >= 0 })

        #expect(report.idleKiB > 0 && report.connectedKiB > 0)
        #expect(report.streamingKiB.count == 2 && report.streamingKiB.allSatisfy { $0.kib > 0 })
        let child = try #require(report.child, "\(report.childSkipped ?? "")")
        #expect(child.idle.rss > 0 && child.connected.anonymous > 0)
        #expect(child.streaming.count == 4 && child.streaming.allSatisfy { $0.sample.rss > 0 })
    }

    @Test func theHistogramCountsRanksAndLateOnes() {
        var histogram = LatenessHistogram()
        for value in [0.05, 1.0, 1.0, 2.0, 4.5, 300.0, -0.5] { histogram.add(value) }
        #expect(histogram.count == 7)
        #expect(histogram.early == 1)
        #expect(histogram.maximum == 300)
        #expect(histogram.percentile(1) == 300)
        #expect(abs(histogram.percentile(0.5) - 1.1) < 1e-9, "the 4th of 7 lies in the 1.0–1.1 ms bin")
        #expect(histogram.later(than: 2.05) == 2)
        var other = LatenessHistogram()
        other.add(3)
        histogram.merge(other)
        #expect(histogram.count == 8 && histogram.later(than: 2.05) == 3)
        #expect(LatenessHistogram().percentile(0.5).isNaN)
    }

    /// A read of several DATA after a gap counts the gap once (a first version counted it for
    /// every packet of the read).
    @Test func packetsMissingBeforeAReadAreCountedOnce() {
        let packet = TimestampTrack.packetMicros
        var track = TimestampTrack()
        #expect(track.read(count: 1, newest: 1_000_000, newStream: true).missing == 0)
        let next = track.read(count: 1, newest: UInt64(1_000_000 + packet), newStream: false)
        #expect(next.missing == 0)
        // Six packets skipped, then three in one read.
        let burst = track.read(count: 3, newest: UInt64(1_000_000 + 10 * packet), newStream: false)
        #expect(burst.missing == 6)
        #expect(burst.timestamps.count == 3)
        #expect(abs(burst.timestamps[0] - (1_000_000 + 8 * packet)) < 1)
        // A new stream starts anywhere: nothing is missing before it.
        #expect(track.read(count: 2, newest: 90_000_000, newStream: true).missing == 0)
        #expect(track.newest == 90_000_000)
    }

    @Test func theReferenceKeepsThePumpsCadence() {
        #expect(ReferenceStream.due(0) == .zero)
        #expect(ReferenceStream.due(1) == .zero)
        #expect(ReferenceStream.due(2) == .zero, "three packets at the start, as the pump's two of lead")
        #expect(ReferenceStream.due(3) == SessionAudioFormat.packetDuration)
        #expect(ReferenceStream.due(377) == .seconds(16), "2048 frames at 48 kHz: 375 packets in 16 s")
    }

    @Test func minutesSetTheStreamingWindow() throws {
        let options = try Options(ParsedCommand.parse(["--minutes", "10", "--cars", "20"], as: Options.spec))
        #expect(options.seconds == 600)
        #expect(options.cars == 20)
        #expect(throws: CommandLineError.self) { try Options(ParsedCommand.parse(["--cars", "0"], as: Options.spec)) }
    }
}
