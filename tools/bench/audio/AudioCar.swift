import DashportBenchSupport
import DashportHeadUnit
import DashportLink
import DashportSession
import DashportTLS
import DashportTransport
import Synchronization

/// A car that hears the server's media audio over TCP: the car-role ``HeadUnitLink`` with its
/// media audio sink (``MediaSinkClient``: CONFIG READY, focus answered like openauto, an ACK per
/// DATA, the strict playout model that counts underflows) on a ``TCPConnection`` of the
/// benchmark's car reactor.
///
/// Every read is timed twice: when the kernel received its bytes (SO_TIMESTAMPNS: on loopback,
/// when the server's `send` delivered them) and when this car's reactor handed them over, before
/// the link decrypts them (the first plus the socket's and the car reactor's own queueing: 100
/// cars share one reactor here). Each DATA in it is compared with its ideal send time, which its own timestamp tells: a DATA's 8-byte header is
/// when its first frame plays on the server's clock (µs since the clock's origin, which the
/// benchmark knows), and the pump sends a packet two packet lengths (``lead``) before that. The
/// first DATA of each of the car's streams is timed only as the end of a PLAY → first DATA wait.
final class AudioCar: Sendable {
    /// The pump's lead: it makes a packet two packet lengths before it plays (`AudioPacer`).
    static let lead = SessionAudioFormat.packetStart(2)
    static let timeout: Duration = .seconds(30)

    let connection: TCPConnection
    private let state: Mutex<AudioCarState>

    private init(connection: TCPConnection, state: consuming sending AudioCarState) {
        self.connection = connection
        self.state = Mutex(state)
    }

    /// Connects and runs the AAP handshake; returns once the server set the sink up (SETUP, then
    /// CONFIG READY from this car). `origin` is the server clock's origin.
    static func connect(
        to address: ListenAddress, configuration: HeadUnitConfiguration, tls: TLSContext, loop: EventLoop,
        origin: ContinuousClock.Instant
    ) async throws -> AudioCar {
        let connection = try await TCPClient.connect(to: address, loop: loop)
        let session: TLSSession
        do {
            session = try TLSSession(context: tls)
        } catch {
            connection.abort()
            throw error
        }
        let link = HeadUnitLink(configuration: configuration, tls: session)
        connection.recordArrivalTimes()
        let car = AudioCar(connection: connection, state: AudioCarState(link: link, origin: origin))
        let timer = loop.scheduleTimer(after: timeout) { car.fail("no audio setup within \(timeout)") }
        let outcome = await withCheckedContinuation { (waiter: CheckedContinuation<BenchFailure?, Never>) in
            car.state.withLock { $0.setupWaiter = waiter }
            connection.start { event in car.handle(event) }
            car.state.withLock { state in car.perform(state.link.start(now: state.elapsed), &state) }
        }
        timer.cancel()
        if let outcome {
            connection.abort()
            throw outcome
        }
        return car
    }

    /// Starts a new measuring window: lateness, underflows, packets and bytes from now on.
    func beginWindow() {
        state.withLock { state in
            state.window = AudioWindow()
            state.window.underflowsBefore = state.link.audio?.stats.underflows ?? 0
        }
    }

    /// What the window since ``beginWindow()`` saw.
    var window: AudioWindow {
        state.withLock { state in
            var window = state.window
            window.underflows = (state.link.audio?.stats.underflows ?? 0) - window.underflowsBefore
            return window
        }
    }

    /// Streams begun (first DATA after a START) and stopped (STOP) so far, with when the latest
    /// of each arrived.
    var events: AudioEvents { state.withLock { $0.events } }

    var failure: String? { state.withLock { $0.failure } }

    func abort() { connection.abort() }

    // MARK: - Reactor side

    private func handle(_ event: TransportEvent) {
        state.withLock { state in
            switch event {
            case .received(let bytes):
                let arrival = ContinuousClock.now
                let delivered = connection.ageOfLastArrival.map { arrival - $0 } ?? arrival
                let before = state.link.audio?.stats
                perform(state.link.receive(bytes, now: arrival - state.start), &state)
                state.window.bytes += bytes.count
                if let before, let after = state.link.audio?.stats { state.account(before, after, at: arrival, delivered: delivered) }
            case .closed(let error):
                failLocked("connection closed (\(error.map { "\($0)" } ?? "orderly"))", &state)
            }
        }
    }

    private func fail(_ reason: String) {
        state.withLock { failLocked(reason, &$0) }
        connection.abort()
    }

    private func failLocked(_ reason: String, _ state: inout AudioCarState) {
        if state.failure == nil { state.failure = reason }
        state.setupWaiter?.resume(returning: BenchFailure(reason))
        state.setupWaiter = nil
    }

    private func perform(_ actions: [HeadUnitAction], _ state: inout AudioCarState) {
        for action in actions {
            switch action {
            case .send(let bytes): connection.write(bytes)
            case .close(let reason):
                connection.close()
                failLocked("link closed: \(reason)", &state)
            case .event(.audio(.setUp)):
                state.setupWaiter?.resume(returning: nil)
                state.setupWaiter = nil
            case .event(.audio(.violation(let text))):
                state.violations.append(text)
            case .event: break
            }
        }
    }
}

/// Streams seen by one car: counts, and when the latest began and stopped arrived.
struct AudioEvents: Sendable {
    var firstData = 0
    var lastFirstData: ContinuousClock.Instant?
    var stops = 0
    var lastStop: ContinuousClock.Instant?
}

/// What one car saw in a measuring window.
struct AudioWindow: Sendable {
    /// Each DATA's lateness when the kernel received it (the server's send).
    var lateness = LatenessHistogram()
    /// The same at the car reactor's read (an upper bound: the car side's queueing included).
    var readLateness = LatenessHistogram()
    var packets = 0
    /// Bytes read from the socket (DATA frames and whatever else the server sent).
    var bytes = 0
    /// Packets the car never got, told by its timestamps (skipped for it, or a shifted stream).
    var missing = 0
    var underflows = 0
    fileprivate var underflowsBefore = 0
}

/// One car's state, touched only with ``AudioCar``'s lock held (on its reactor).
struct AudioCarState {
    let link: HeadUnitLink
    let origin: ContinuousClock.Instant
    let start = ContinuousClock.now
    var setupWaiter: CheckedContinuation<BenchFailure?, Never>?
    var failure: String?
    var violations: [String] = []
    var events = AudioEvents()
    var window = AudioWindow()
    /// A START came and its first DATA has not.
    var awaitingFirst = false
    var timestamps = TimestampTrack()

    init(link: HeadUnitLink, origin: ContinuousClock.Instant) {
        self.link = link
        self.origin = origin
    }

    var elapsed: Duration { ContinuousClock.now - start }

    /// Times the DATA messages one read held (the sink's counters before and after it): read at
    /// `arrival`, received by the kernel at `delivered`.
    mutating func account(
        _ before: MediaSinkStats, _ after: MediaSinkStats, at arrival: ContinuousClock.Instant, delivered: ContinuousClock.Instant
    ) {
        if after.starts > before.starts { awaitingFirst = true }
        if after.stops > before.stops {
            events.stops += after.stops - before.stops
            events.lastStop = arrival
        }
        let count = after.packets - before.packets
        guard count > 0, let last = after.lastTimestampUs else { return }
        let read = timestamps.read(count: count, newest: last, newStream: awaitingFirst)
        window.packets += count
        window.missing += read.missing
        for (index, timestamp) in read.timestamps.enumerated() {
            if index == 0 && awaitingFirst {
                // A car's stream joins the server's where it is (the newest packet made when its
                // START went out, after the focus round trip): that wait is the PLAY → first DATA
                // latency, measured on its own, not pacing.
                awaitingFirst = false
                events.firstData += 1
                events.lastFirstData = arrival
                continue
            }
            let ideal = origin + .microseconds(Int64(timestamp)) - AudioCar.lead
            window.lateness.add(milliseconds(delivered - ideal))
            window.readLateness.add(milliseconds(arrival - ideal))
        }
    }
}

/// The DATA timestamps one car has seen: those of the packets a read held, and the packets missing
/// between the read and the one before (skipped for this car, or a pump that shifted its stream).
/// The sink keeps only the newest timestamp; the packets of one read are taken as consecutive.
struct TimestampTrack: Sendable {
    static let packetMicros = Double(SessionAudioFormat.framesPerPacket) * 1e6 / Double(SessionAudioFormat.sampleRate)

    private(set) var newest: UInt64?

    /// `count` packets whose newest has timestamp `newest` (µs); `newStream`: the first of them
    /// begins a stream (nothing before it is missing).
    mutating func read(count: Int, newest: UInt64, newStream: Bool) -> (timestamps: [Double], missing: Int) {
        let timestamps = (0..<count).map { Double(newest) - Double(count - 1 - $0) * Self.packetMicros }
        var missing = 0
        if !newStream, let previous = self.newest, let first = timestamps.first {
            missing = max(0, Int(((first - Double(previous)) / Self.packetMicros).rounded()) - 1)
        }
        self.newest = newest
        return (timestamps, missing)
    }
}
