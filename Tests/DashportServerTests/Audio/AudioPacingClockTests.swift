import DashportClock
import DashportServices
import DashportSession
import Foundation
import Synchronization
import Testing

@testable import DashportServer

/// The pump paces on the clock's ``DashportClock/preciseNow``, not on its whole milliseconds: a
/// packet is due every 42.67 ms, and with the millisecond floor a wake just after a packet was due
/// read an instant just before it, made nothing, and ran again a millisecond or two late.
@Suite struct AudioPacingClockTests {
    @Test func timestampsAndWakesFollowTheClockBelowAMillisecond() {
        let clock = FineClock(at: .microseconds(400))
        let timer = RecordingAudioTimer()
        let source = CountingSource()
        let fanout = AudioFanout(source: source, clock: clock, timer: timer)
        fanout.start()
        source.play()
        timer.runNext()
        // Packet n plays at 0.4 ms + n × 2048 / 48 kHz: the stream began at 0.4 ms, not at 0.
        var cursor: UInt64 = 0
        let first = fanout.read(from: &cursor, limit: 10).packets.map(\.timestampMicros)
        #expect(first == [400, 43_066, 85_733])
        // The next wake is asked for exactly when packet 3 is due (0.4 ms + 42.667 ms), from now.
        #expect(timer.delays.last == SessionAudioFormat.packetStart(1))

        // Woken 0.1 ms after packet 3 was due (the clock still reads 43 whole ms): it is made.
        clock.set(.microseconds(400) + SessionAudioFormat.packetStart(1) + .microseconds(100))
        timer.runNext()
        #expect(fanout.packetsMade == 4)
        #expect(fanout.read(from: &cursor, limit: 10).packets.map(\.timestampMicros) == [128_400])
        // And the wake after it is due 42.567 ms later, not rounded to the millisecond.
        #expect(timer.delays.last == SessionAudioFormat.packetStart(2) - SessionAudioFormat.packetStart(1) - .microseconds(100))
    }
}

/// A clock whose whole milliseconds lag its precise time, as the system clock's do.
final class FineClock: DashportClock {
    private let precise: Mutex<Duration>

    init(at start: Duration) { precise = Mutex(start) }

    func set(_ time: Duration) { precise.withLock { $0 = time } }

    var preciseNow: Duration { precise.withLock { $0 } }
    var now: ClockInstant { ClockInstant(sinceOrigin: preciseNow) }
    var minimumResolution: Duration { .nanoseconds(1) }
    func wallTime() -> Date { Date(timeIntervalSince1970: 1_800_000_000) }
    func sleep(until deadline: ClockInstant, tolerance: Duration?) async throws {
        throw CancellationError()  // nothing here sleeps
    }
}

/// Records each delay the pump asks for and runs the newest work when told.
final class RecordingAudioTimer: AudioTimer {
    private let state = Mutex<(delays: [Duration], work: (@Sendable () -> Void)?)>(([], nil))

    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        state.withLock {
            $0.delays.append(delay)
            $0.work = work
        }
    }

    var delays: [Duration] { state.withLock { $0.delays } }

    func runNext() {
        let work = state.withLock { state -> (@Sendable () -> Void)? in
            defer { state.work = nil }
            return state.work
        }
        work?()
    }
}
