import DashportClock
import DashportServices
import DashportSession
import DashportTestSupport
import Synchronization
import Testing

@testable import DashportServer

/// The fan-out of one audio stream: the pump pulls on its timer only while the source streams,
/// every subscribed car is woken per batch, and a car that fell behind skips ahead and counts it.
@Suite struct AudioFanoutTests {
    @Test func pullsOnlyWhileStreamingAndWakesEveryCar() async {
        let harness = FanoutHarness()
        let woken = Mutex(0)
        _ = harness.fanout.subscribe { _ in
            woken.withLock { $0 += 1 }
            return .woken
        }
        harness.fanout.start()
        #expect(harness.timer.pending == 0, "an idle source is not polled")
        harness.source.play()
        harness.timer.runDue(at: harness.clock.now.sinceOrigin)
        #expect(harness.fanout.packetsMade == 3, "the packet that plays now and two of lead")
        #expect(woken.withLock { $0 } == 1)
        await harness.advance(by: .milliseconds(43))
        #expect(harness.fanout.packetsMade == 4)
        harness.source.pause()
        await harness.advance(by: .milliseconds(43))
        #expect(harness.fanout.packetsMade == 4)
        #expect(harness.timer.pending == 0, "a paused source arms no timer")
        // Every packet is the source's bytes, in order.
        var cursor: UInt64 = 0
        let read = harness.fanout.read(from: &cursor, limit: 10)
        #expect(read.packets.map { $0.pcm.first } == [0, 1, 2, 3])
        #expect(read.packets.allSatisfy { $0.pcm.count == SessionAudioFormat.bytesPerPacket })
    }

    /// Cars whose step would run on the pump's own thread (its reactor's) are woken after every
    /// other car was: the other reactors start on the packet while the pump's writes its own
    /// cars' DATA one after the other. A car gone in either pass is unsubscribed.
    @Test func carsOfOtherReactorsAreWokenBeforeThePumpsOwn() async {
        let harness = FanoutHarness()
        let calls = Mutex<[String]>([])
        func subscribe(_ name: String, here: Bool, goneAfterFirst: Bool = false) -> UInt64 {
            harness.fanout.subscribe { (inlineAllowed: Bool) -> CarMailbox.Wake in
                calls.withLock { $0.append("\(name)\(inlineAllowed ? "+" : "")") }
                if goneAfterFirst, inlineAllowed { return .gone }
                return here && !inlineAllowed ? .runsHere : .woken
            }
        }
        _ = subscribe("local1", here: true)
        _ = subscribe("remote1", here: false)
        _ = subscribe("local2", here: true, goneAfterFirst: true)
        _ = subscribe("remote2", here: false)
        harness.fanout.start()
        harness.source.play()
        harness.timer.runDue(at: harness.clock.now.sinceOrigin)
        let first = calls.withLock { $0 }
        let passOne = first.prefix { !$0.hasSuffix("+") }
        #expect(Set(passOne) == ["local1", "remote1", "local2", "remote2"], "every car asked first without running here: \(first)")
        #expect(Set(first.dropFirst(passOne.count)) == ["local1+", "local2+"], "then only the pump's own: \(first)")
        #expect(harness.fanout.subscriberCount == 3, "the car gone in the second pass is unsubscribed")
    }

    @Test func aCarThatFellBehindSkipsToTheNewestAndCountsIt() async {
        let harness = FanoutHarness()
        harness.fanout.start()
        harness.source.play()
        harness.timer.runDue(at: harness.clock.now.sinceOrigin)
        for _ in 0..<10 { await harness.advance(by: .milliseconds(43)) }
        #expect(harness.fanout.packetsMade == 13)
        var cursor: UInt64 = 0
        let read = harness.fanout.read(from: &cursor, limit: 100)
        #expect(read.skipped == 13 - AudioFanout.maxBehind)
        #expect(read.packets.count == AudioFanout.maxBehind)
        #expect(cursor == 13)
        // The window limits what one read takes.
        var joined = harness.fanout.joinCursor
        #expect(harness.fanout.read(from: &joined, limit: 1).packets.count == 1)
        #expect(harness.fanout.read(from: &joined, limit: 1).packets.count == 1)
        #expect(harness.fanout.read(from: &joined, limit: 1).packets.isEmpty)
    }

    /// A car that STARTs while the stream runs gets the packets that have not begun to play (the
    /// pump's two of lead), so it has a lead of its own at once; one that STARTs after a pause
    /// never gets a packet made before it (a resumed stream begins with its own first packet).
    @Test func aCarJoinsWithTheLeadAndNeverHearsAnEarlierStream() async {
        let harness = FanoutHarness()
        harness.fanout.start()
        harness.source.play()
        harness.timer.runDue(at: harness.clock.now.sinceOrigin)
        for _ in 0..<5 { await harness.advance(by: .milliseconds(43)) }
        #expect(harness.fanout.packetsMade == 8)
        var cursor = harness.fanout.joinCursor
        #expect(harness.fanout.read(from: &cursor, limit: 10).packets.map { $0.pcm.first } == [6, 7])

        harness.source.pause()
        await harness.advance(by: .milliseconds(43))
        var paused = harness.fanout.joinCursor
        #expect(harness.fanout.read(from: &paused, limit: 10).packets.isEmpty, "nothing of the paused stream")
        harness.source.play()
        var resumed = harness.fanout.joinCursor
        #expect(harness.fanout.read(from: &resumed, limit: 10).packets.isEmpty, "the new stream made nothing yet")
        harness.timer.runDue(at: harness.clock.now.sinceOrigin)
        #expect(harness.fanout.read(from: &resumed, limit: 10).packets.map { $0.pcm.first } == [8, 9, 10])
    }
}

/// A source that counts its pulls: packet n's bytes are all n.
final class CountingSource: SessionAudioSource {
    private struct State {
        var streaming = false
        var pulls = 0
        var wake: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())

    func attach(wake: @escaping @Sendable () -> Void) { state.withLock { $0.wake = wake } }
    var isStreaming: Bool { state.withLock { $0.streaming } }

    func pull(frames: Int, into buffer: inout [UInt8]) -> Int {
        let n = state.withLock { state -> Int in
            defer { state.pulls += 1 }
            return state.pulls
        }
        buffer.append(contentsOf: repeatElement(UInt8(truncatingIfNeeded: n), count: frames * SessionAudioFormat.bytesPerFrame))
        return frames
    }

    func play() {
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            state.streaming = true
            return state.wake
        }
        wake?()
    }

    func pause() { state.withLock { $0.streaming = false } }
}

/// A timer the test runs by hand, against the manual clock.
final class ManualAudioTimer: AudioTimer {
    private let works = Mutex<[(at: Duration, work: @Sendable () -> Void)]>([])
    let clock: ManualClock

    init(clock: ManualClock) { self.clock = clock }

    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        let at = clock.now.sinceOrigin + delay
        works.withLock { $0.append((at, work)) }
    }

    var pending: Int { works.withLock { $0.count } }

    /// Runs every work due at `now`, including those they schedule for now.
    func runDue(at now: Duration) {
        while true {
            let due = works.withLock { works -> (@Sendable () -> Void)? in
                guard let index = works.firstIndex(where: { $0.at <= now }) else { return nil }
                return works.remove(at: index).work
            }
            guard let due else { return }
            due()
        }
    }
}

struct FanoutHarness {
    let clock = ManualClock()
    let source = CountingSource()
    let timer: ManualAudioTimer
    let fanout: AudioFanout

    init() {
        timer = ManualAudioTimer(clock: clock)
        fanout = AudioFanout(source: source, clock: clock, timer: timer)
    }

    func advance(by duration: Duration) async {
        await clock.advance(by: duration)
        timer.runDue(at: clock.now.sinceOrigin)
    }
}
