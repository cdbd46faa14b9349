import DashportSession
import Testing

@testable import DashportServer

/// The audio pump's cadence on plain durations: one packet every 2048 / 48 kHz, two of lead, no
/// drift, a bounded burst after a stall.
@Suite struct AudioPacerTests {
    @Test func threePacketsAtOnceThenOneEvery42Point67Milliseconds() {
        var pacer = AudioPacer()
        let start = Duration.seconds(100)
        pacer.begin(at: start)
        #expect(pacer.due(at: start) == 3, "the packet that plays now and two of lead")
        #expect(pacer.nextDue == start + SessionAudioFormat.packetStart(1))
        #expect(pacer.due(at: start + .milliseconds(42)) == 0)
        #expect(pacer.due(at: start + .microseconds(42_667)) == 1)
        // After 1,000 packets the schedule is still exact to the nanosecond (no rounded 42.67).
        var made = 4
        while made < 1000 {
            made += pacer.due(at: pacer.nextDue)
        }
        #expect(pacer.made == 1000)
        #expect(pacer.nextDue == start + .nanoseconds(Int64(998) * 2048 * 1_000_000_000 / 48_000))
    }

    @Test func timestampsAreMicrosecondsWhenEachPacketPlays() {
        var pacer = AudioPacer()
        pacer.begin(at: .seconds(2))
        #expect(pacer.timestampMicros(ofPacket: 0) == 2_000_000)
        #expect(pacer.timestampMicros(ofPacket: 1) == 2_042_666)
        #expect(pacer.timestampMicros(ofPacket: 3) == 2_128_000)
    }

    /// A pump held up for a second makes at most four packets at once, then keeps the cadence from
    /// there: the cars never get a second of audio in one burst.
    @Test func aStallIsABoundedBurstAndTheStreamMovesOn() {
        var pacer = AudioPacer()
        pacer.begin(at: .zero)
        #expect(pacer.due(at: .zero) == 3)
        let late = Duration.seconds(1)
        #expect(pacer.due(at: late) == AudioPacer.maxBurst)
        #expect(pacer.nextDue == late, "the next packet is due now, not a second ago")
        #expect(pacer.due(at: late) == 1)
        #expect(pacer.due(at: late + .milliseconds(1)) == 0)
    }
}
