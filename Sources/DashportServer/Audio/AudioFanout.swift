import DashportClock
import DashportServices
import DashportSession
import DashportTransport
import Synchronization

/// The server's one media audio stream: pulls the session's ``SessionAudioSource`` in real time
/// and keeps the newest packets in one fixed ring that every car with a media audio sink reads
/// from its own cursor (design: "one stream fanned out to every car that lists a sink").
///
/// Pacing: packet `n` of a stream is due at `start + n × 42.67 ms` (counted in frames, so the
/// cadence never drifts) and is pulled ``AudioPacer/lead`` early, so a car is never more than
/// two packets ahead of real time. One timer for the whole server, on the reactor
/// (``AudioTimer``), armed for the next packet only while the source streams; no task or timer
/// per car or per packet is created. A car reads what it may send (its window) when woken; one
/// that fell behind by more than ``maxBehind`` packets skips to the newest and counts what it
/// skipped, so a stuck car costs no memory and delays no one.
final class AudioFanout: Sendable {
    /// Packets kept: what a car that fell behind may still catch up on.
    static let ringCapacity = 16
    /// How far behind the newest packet a car's cursor may be before it skips ahead.
    static let maxBehind = 8

    struct Read {
        var packets: [AudioPacket]
        /// Packets this car missed (it was behind by more than ``maxBehind``).
        var skipped: Int
    }

    private struct State {
        var pacer = AudioPacer()
        var ring: [AudioPacket?] = Array(repeating: nil, count: AudioFanout.ringCapacity)
        /// Sequence number of the next packet to be made (the ring holds the ones before it).
        var head: UInt64 = 0
        /// The sequence number of the current (or last) stream's first packet.
        var streamFirst: UInt64 = 0
        var running = false
        var wakers: [UInt64: Waker] = [:]
        var nextWaker: UInt64 = 0
        var generation: UInt64 = 0
        var stopped = false
    }

    let source: any SessionAudioSource
    private let clock: any DashportClock
    private let timer: any AudioTimer
    private let state = Mutex(State())
    private let notifying = Mutex(())

    /// Told whether any car is subscribed, when that changes (a car's sink opened or closed).
    private let listening: (@Sendable (Bool) -> Void)?

    init(
        source: any SessionAudioSource, clock: any DashportClock, timer: any AudioTimer,
        listening: (@Sendable (Bool) -> Void)? = nil
    ) {
        self.source = source
        self.clock = clock
        self.timer = timer
        self.listening = listening
    }

    /// Attaches the source: from now on it starts the pump by streaming.
    func start() {
        source.attach { [weak self] in self?.sourceWoke() }
        sourceWoke()
    }

    /// Stops pulling for good (the server is stopping).
    func stop() {
        state.withLock { state in
            state.stopped = true
            state.running = false
            state.generation += 1
        }
    }

    /// A car's wake-up: with `inlineAllowed` false, one whose step would run on the pump's own
    /// thread does nothing and says ``CarMailbox/Wake/runsHere`` (see ``pump(_:)``).
    typealias Waker = @Sendable (_ inlineAllowed: Bool) -> CarMailbox.Wake

    /// Registers a car's wake-up, called after new packets were made; returns its id.
    func subscribe(_ wake: @escaping Waker) -> UInt64 {
        let (id, first) = state.withLock { state in
            state.nextWaker += 1
            state.wakers[state.nextWaker] = wake
            return (state.nextWaker, state.wakers.count == 1)
        }
        if first { tellListening() }
        return id
    }

    func unsubscribe(_ id: UInt64) {
        let last = state.withLock { state in state.wakers.removeValue(forKey: id) != nil && state.wakers.isEmpty }
        if last { tellListening() }
    }

    /// Tells ``listening`` whether cars are subscribed, read under its own lock so that the last
    /// call made always carries the newest count (a subscribe and an unsubscribe on two threads
    /// cannot leave a stale answer).
    private func tellListening() {
        guard let listening else { return }
        notifying.withLock { _ in listening(subscriberCount > 0) }
    }

    /// Cars subscribed now.
    var subscriberCount: Int { state.withLock { $0.wakers.count } }

    /// The sequence number a car that starts now reads from: the packets of the running stream
    /// that have not begun to play (the pump's lead, ``AudioPacer/leadPackets``), so it joins the
    /// stream where it is with a lead of its own; never a packet of an earlier stream (nothing
    /// made before the last pause is sent again).
    var joinCursor: UInt64 {
        state.withLock { state in
            guard state.running else { return state.head }
            let lead = UInt64(AudioPacer.leadPackets)
            return max(state.streamFirst, state.head > lead ? state.head - lead : 0)
        }
    }

    /// Up to `limit` packets from `cursor` on (advancing it), skipping ahead when it fell behind.
    func read(from cursor: inout UInt64, limit: Int) -> Read {
        state.withLock { state in
            var skipped = 0
            let oldest = state.head > UInt64(Self.maxBehind) ? state.head - UInt64(Self.maxBehind) : 0
            if cursor < oldest {
                skipped = Int(oldest - cursor)
                cursor = oldest
            }
            if cursor > state.head { cursor = state.head }  // a new stream began below it
            var packets: [AudioPacket] = []
            while packets.count < limit, cursor < state.head, let packet = state.ring[Int(cursor % UInt64(Self.ringCapacity))] {
                packets.append(packet)
                cursor += 1
            }
            return Read(packets: packets, skipped: skipped)
        }
    }

    /// Packets made since the server started.
    var packetsMade: UInt64 { state.withLock { $0.head } }

    // MARK: The pump

    private func sourceWoke() {
        let begin = state.withLock { state -> UInt64? in
            guard !state.stopped, !state.running, source.isStreaming else { return nil }
            state.running = true
            state.generation += 1
            state.streamFirst = state.head
            state.pacer.begin(at: clock.preciseNow)
            return state.generation
        }
        if let begin { timer.schedule(after: .zero) { [weak self] in self?.pump(begin) } }
    }

    /// Makes every packet that is due, wakes the cars, arms the timer for the next one.
    private func pump(_ generation: UInt64) {
        let now = clock.preciseNow
        var next: Duration?
        let streaming = source.isStreaming
        let timestamps = state.withLock { state -> [UInt64] in
            guard state.generation == generation, state.running else { return [] }
            guard streaming else {
                state.running = false
                return []
            }
            let due = state.pacer.due(at: now)
            return (0..<due).map { state.pacer.timestampMicros(ofPacket: state.pacer.made - due + $0) }
        }
        var made: [AudioPacket] = []
        made.reserveCapacity(timestamps.count)
        for timestamp in timestamps {
            var pcm: [UInt8] = []
            pcm.reserveCapacity(SessionAudioFormat.bytesPerPacket)
            _ = source.pull(frames: SessionAudioFormat.framesPerPacket, into: &pcm)
            made.append(AudioPacket(timestampMicros: timestamp, pcm: pcm))
        }
        let wakers = state.withLock { state -> [(UInt64, Waker)] in
            guard state.generation == generation, state.running else { return [] }
            for packet in made {
                state.ring[Int(state.head % UInt64(Self.ringCapacity))] = packet
                state.head += 1
            }
            next = state.pacer.nextDue
            return made.isEmpty ? [] : state.wakers.map { ($0.key, $0.value) }
        }
        // Cars on other reactors first: their reactors start on the packet at once, in parallel
        // with this thread writing its own cars' DATA in this turn, one after the other.
        var here: [(UInt64, Waker)] = []
        for (id, wake) in wakers {
            switch wake(false) {
            case .gone: unsubscribe(id)
            case .woken: break
            case .runsHere: here.append((id, wake))
            }
        }
        for (id, wake) in here where wake(true) == .gone { unsubscribe(id) }
        guard let next else { return }
        timer.schedule(after: max(.zero, next - clock.preciseNow)) { [weak self] in self?.pump(generation) }
    }
}

/// The one timer the audio pump runs on: the reactor's in the server, a manual clock's in tests.
protocol AudioTimer: Sendable {
    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void)
}

/// The reactor's timer: the pump runs on the thread that owns the cars' sockets, beside them.
struct ReactorAudioTimer: AudioTimer {
    let loop: EventLoop

    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        if delay <= .zero {
            loop.execute(work)
        } else {
            loop.scheduleTimer(after: delay, work)
        }
    }
}
